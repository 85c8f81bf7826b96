"""Build step of the wheel (the metadata is in pyproject.toml): the workflow
files stay where the project's layout keeps them (``Snakefile``, ``workflow/``
and the demo's ``config/config.yaml`` at the top of the repository) and are
copied into the package as ``qacamp/_workflow/`` when the wheel is built, so an
installed ``qacamp run CONFIG`` finds them without a clone
(:func:`qacamp.runner.workflow_root`)."""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
#: what the installed workflow needs, relative to the repository root
WORKFLOW_FILES = ("Snakefile", "workflow/run.py", "workflow/rules/*.smk",
                  "workflow/schemas/*.yaml", "workflow/profiles/*/config.yaml",
                  "workflow/report/*.rst", "workflow/envs/*.yaml", "config/config.yaml")


class BuildPy(build_py):
    """``build_py`` plus the workflow files under ``<build>/qacamp/_workflow``."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install runs the repository's own files
        target = Path(self.build_lib) / "qacamp" / "_workflow"
        for pattern in WORKFLOW_FILES:
            for src in sorted(ROOT.glob(pattern)):
                dest = target / src.relative_to(ROOT)
                dest.parent.mkdir(parents=True, exist_ok=True)
                self.copy_file(str(src), str(dest), preserve_mode=False)


setup(cmdclass={"build_py": BuildPy})
