"""`qacamp schema`: list the workflow config's keys (or as Markdown: config/README.md)."""

from __future__ import annotations

from . import HELP, add_markdown_option, put_markdown


def register(sub):
    p = sub.add_parser("schema", help=HELP["schema"],
                       description="Print every key of the workflow config (key, type, "
                                   "default, description) as a tab-separated table, from the "
                                   "schema the workflow validates a config against.")
    add_markdown_option(p, "the keys as Markdown", "config/README.md is its output: `make docs`")
    p.set_defaults(func=run)


def run(args) -> int:
    from .. import configdoc
    from ..plan import config_schema
    from ..runner import workflow_root

    schema = config_schema(workflow_root() / "workflow" / "schemas" / "config.schema.yaml")
    if args.markdown is not None:
        text = configdoc.to_markdown(schema) + "\n"
        put_markdown(text, args.markdown)
        return 0
    print("section\tkey\ttype\tdefault\tdescription")
    for title, _, rows in configdoc.sections(schema):
        for r in rows:
            print("\t".join([title.strip("`"), r["key"], r["type"], r["default"].strip("`"),
                             r["description"]]))
    return 0
