"""A deterministic kill point for tests/test_interrupt_demo.py (never on the path of
a user's run: the test puts this folder first on the PYTHONPATH of the workflow
it starts).

With ``QACAMP_KILLPOINT=<glob>`` and ``QACAMP_KILLPOINT_MARKER=<file>`` in the
environment, the first :meth:`qacamp.io.outputs.Writing.commit` whose staged
outputs include a path matching ``<glob>`` (``fnmatch`` on the absolute path)
creates ``<file>`` -- listing the temporary files it holds, every byte written
-- and then sleeps until the test SIGKILLs the process group: the run dies at
the worst moment (temporaries complete, nothing renamed into place, no record
written) whatever the machine's speed.  The patch is applied when the module
is first imported, so processes that never write are untouched.
"""

from __future__ import annotations

import fnmatch
import importlib.abc
import importlib.machinery
import os
import sys
import time

PATTERN = os.environ.get("QACAMP_KILLPOINT")
MARKER = os.environ.get("QACAMP_KILLPOINT_MARKER")
MODULE = "qacamp.io.outputs"


def _patch(module) -> None:
    original = module.Writing.commit

    def commit(self):
        temps = [str(tmp) for target, (tmp, *_rest) in sorted(self.staged.items())
                 if fnmatch.fnmatch(str(target), PATTERN)]
        if temps and all(os.path.isfile(t) for t in temps):
            # the marker appears with its content complete (written aside, then
            # linked to its name: the test polls for the name), and only once
            staged = f"{MARKER}.{os.getpid()}"
            with open(staged, "w", encoding="utf-8") as fh:
                fh.write("\n".join(temps) + "\n")
            try:
                os.link(staged, MARKER)
            except FileExistsError:
                pass  # another job got there first: it is the one killed
            os.unlink(staged)
            while True:  # until the test kills the whole process group
                time.sleep(3600)
        return original(self)

    module.Writing.commit = commit


class _Loader(importlib.abc.Loader):
    def __init__(self, loader):
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.loader.exec_module(module)
        _patch(module)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != MODULE:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is not None and spec.loader is not None:
            spec.loader = _Loader(spec.loader)
        return spec


if PATTERN and MARKER:
    sys.meta_path.insert(0, _Finder())
