"""`qacamp presets`: list the campaign presets (or as Markdown: docs/presets.md)."""

from __future__ import annotations

from . import HELP, add_markdown_option, put_markdown


def register(sub):
    p = sub.add_parser("presets", help=HELP["presets"],
                       description="Print every preset setting with the sentence of its "
                                   "source that supports it, or 'project choice: reason'.")
    add_markdown_option(p, "the presets as Markdown",
                        "docs/presets.md is `qacamp presets --markdown docs/presets.md`")
    p.set_defaults(func=run)


def run(args) -> int:
    from .. import presets

    if args.markdown is not None:
        text = presets.to_markdown() + "\n"
        put_markdown(text, args.markdown)
        return 0
    print("preset\tkinds\tkey\tvalue\tsource\tsentence or reason")
    for p in presets.PRESETS.values():
        for key, value in presets.flatten(p.settings):
            cite, text = presets.source_text(p, key)
            print(f"{p.name}\t{','.join(p.kinds)}\t{key}\t{value}\t{cite}\t{text}")
    return 0
