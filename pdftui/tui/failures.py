"""The TUI's one error path: a worker that raises ends in one ``Worker.StateChanged`` handler.

Workers (search, index, reader loads, page images, marks and notes, export, the viewer)
do not catch and stringify their exceptions: they raise, Textual moves the worker to
``WorkerState.ERROR`` (every worker is started with ``exit_on_error=False``, so the app
never quits on one) and posts ``Worker.StateChanged`` to the node that started it.
:class:`FailureHandler`, mixed into the main screen and the widgets that start workers, is
that node's only handler: a group named in ``FAILURE_HANDLERS`` gets its own reaction (the
search shows it in the results pane, the reader ignores a stale load); every other failure
becomes one error notification titled "<what> failed", the words of
:func:`pdftui.errors.user_message` as its message (control characters stripped).
"""

from __future__ import annotations

from operator import attrgetter

from textual.worker import Worker, WorkerState

from ..errors import user_message
from ..text import clean_text


def failure_title(worker: Worker) -> str:
    """"<what> failed": a worker started with words as its name (``name="Marking"``,
    capitalised) is named by them, any other by its group."""
    what = worker.name if worker.name[:1].isupper() else (worker.group or "worker")
    return f"{what} failed"


class FailureHandler:
    """Mixin for a Textual node that starts workers (see the module docstring)."""

    #: ``{worker group: method name}``; the method is called as ``method(worker, error)``
    #: instead of the notification (a dotted name reaches an attribute's method:
    #: ``"triage.load_failed"``).
    FAILURE_HANDLERS: dict[str, str] = {}

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """Every worker error of this node ends here."""
        if event.state != WorkerState.ERROR:
            return
        worker, error = event.worker, event.worker.error
        method = self.FAILURE_HANDLERS.get(worker.group)
        if method is not None:
            attrgetter(method)(self)(worker, error)
        else:
            self.report_failure(failure_title(worker), error)

    def report_failure(self, title: str, error: BaseException,
                       timeout: float | None = 8) -> None:
        """One error notification for ``error``: its :func:`user_message`, control
        characters stripped, never read as markup (it may quote a file name); ``timeout``
        in seconds (None: Textual's default)."""
        self.notify(clean_text(user_message(error)), title=title, severity="error",
                    timeout=timeout, markup=False)
