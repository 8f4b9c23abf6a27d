"""Errors a student reads: the package's own messages come first, without the package's internal frames.

A TypeError / ValueError / IndexError raised by the package's code (its innermost frame is in this package) is
re-raised from the public function with no traceback below it and no chained context, and that function's own frame
is hidden from IPython (__tracebackhide__), so a notebook shows the student's line and the message. An error raised
in the student's code (their module's forward) or in a library keeps its whole traceback, also when the package's
message is raised from it."""

import functools
import os

_HERE = os.path.dirname(os.path.abspath(__file__))
STUDENT_ERRORS = (TypeError, ValueError, IndexError, KeyError, FileNotFoundError)


def _raised_here(tb):
    while tb.tb_next is not None:
        tb = tb.tb_next
    return os.path.dirname(os.path.abspath(tb.tb_frame.f_code.co_filename)) == _HERE


def student_errors(fn):
    @functools.wraps(fn)
    def call(*args, **kwargs):
        __tracebackhide__ = True  # noqa: F841  (read by IPython and pytest)
        try:
            return fn(*args, **kwargs)
        except STUDENT_ERRORS as e:
            if e.__traceback__ is None or not _raised_here(e.__traceback__):
                raise
            cause = e.__cause__  # the student's own error behind ours (their forward failed) keeps its frames
            keep = (
                cause
                if cause is not None and cause.__traceback__ is not None and not _raised_here(cause.__traceback__)
                else None
            )
            e.__context__ = None
            raise e.with_traceback(None) from keep

    return call


def unknown_keywords(call, unknown, allowed):
    """A TypeError for keywords `call` does not take, listing the ones it does (and the closest, when one is close)."""
    import difflib

    names = sorted(unknown)
    close = [m for n in names for m in difflib.get_close_matches(n, allowed, n=1)]
    return TypeError(
        "%s got %s %s; it takes %s.%s"
        % (
            call,
            "an unknown keyword" if len(names) == 1 else "unknown keywords",
            ", ".join(repr(n) for n in names),
            ", ".join(allowed),
            (" Did you mean %s?" % " or ".join(repr(c) for c in close)) if close else "",
        )
    )
