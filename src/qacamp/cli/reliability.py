"""`qacamp reliability` (placeholder during development; replaced by its owner)."""


def register(sub):
    sub.add_parser("reliability", help="(in development)")
