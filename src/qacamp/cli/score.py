"""`qacamp score` (placeholder during development; replaced by its owner)."""


def register(sub):
    sub.add_parser("score", help="(in development)")
