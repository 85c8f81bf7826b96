"""Snakemake logger plugin ``qacamp`` (``snakemake --logger qacamp``): a
progress line per finished step, a failed step's one-line error first and a
closing summary, on stderr (:mod:`qacamp.workflow_log`); Snakemake's full log
is still written to ``.snakemake/log/``.  ``workflow/run.py`` (``make run``,
``make demo``, ``qacamp run``) uses it unless ``QACAMP_LOG=snakemake`` is set or
``--logger`` is given.  Installed with qacamp (a top-level package, found by
Snakemake's plugin registry under its ``snakemake_logger_plugin_`` prefix); only
the Snakemake on the login node logs, so SLURM runs use it as they are.
"""

from __future__ import annotations

import sys
from logging import LogRecord

from snakemake_interface_logger_plugins.base import LogHandlerBase

from qacamp.workflow_log import ProgressLog, record_fields


class LogHandler(LogHandlerBase):
    """Feeds Snakemake's records to :class:`qacamp.workflow_log.ProgressLog`."""

    def __post_init__(self) -> None:
        def write(line: str) -> None:
            sys.stderr.write(line + "\n")
            sys.stderr.flush()

        dryrun = bool(getattr(self.common_settings, "dryrun", False))
        self.progress = ProgressLog(write, dryrun=dryrun)

    def emit(self, record: LogRecord) -> None:
        try:
            event, fields = record_fields(record)
            try:
                message = record.getMessage()
            except (TypeError, ValueError):
                message = str(record.msg or "")
            self.progress.handle(event, fields, record.levelno,
                                 "" if record.msg is None else message, record.created)
        except Exception:  # noqa: BLE001 - a logging error must never stop the workflow
            self.handleError(record)

    def close(self) -> None:
        self.progress.close()
        super().close()

    @property
    def writes_to_stream(self) -> bool:
        return True

    @property
    def writes_to_file(self) -> bool:
        return False

    @property
    def has_filter(self) -> bool:
        return True

    @property
    def has_formatter(self) -> bool:
        return True

    @property
    def needs_rulegraph(self) -> bool:
        return False
