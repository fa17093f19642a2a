"""The one error hierarchy of the engine, split by whose fault it is.

* :class:`ModelOutputError` (and its children) are the model's or the request's
  fault: the agent loop turns them into an observation so the model can correct
  itself. They never reach the user as a crash.
* :class:`SetupError` (and its children) are the installation's fault: a missing
  or corrupt model file, a malformed employee file, bad settings. They stop the
  run with a message that says what is wrong and what to do.
* :class:`IdentityError` is the person's own request refused (acting as someone else).
* :class:`Cancelled` is raised when the user stops a run.

Every message is written for a person, not a developer: it names the file or
the value and says what to do next (``hint``).
"""

from __future__ import annotations


class HRAssistantError(Exception):
    """Base class of every error the app raises on purpose."""

    def __init__(self, message: str, *, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} {self.hint}".strip()


class SetupError(HRAssistantError):
    """Something in the installation or configuration must be fixed by a person."""


class NoModelFound(SetupError):
    """No chat model is configured, in the model folders or installed as a package (the window offers
    to choose one; every other failure to load a model is an error to show)."""


class ModelFileError(SetupError):
    """The GGUF model file is missing, corrupt, unsupported or too large."""


class SettingsError(SetupError):
    """A setting has an invalid value."""


class DataFileError(SetupError):
    """An employee or policy file cannot be read."""


class SiteFileError(SetupError):
    """The site file IT wrote is damaged, untrusted, or forbids what was asked."""


class IdentityError(HRAssistantError):
    """The person asked to act as someone else, which their account may not do."""


class ModelOutputError(HRAssistantError):
    """The model (or the question) asked for something invalid; fed back to the loop."""


class ToolInputError(ModelOutputError):
    """A tool's input was rejected (syntax, unknown name, forbidden construct)."""


class AccessDenied(ModelOutputError):
    """The signed-in user may not see what was asked for."""


class RequestRefused(HRAssistantError):
    """A step of a leave request that its rules do not allow (deciding one's own, a second decision…)."""


class Cancelled(HRAssistantError):
    """The user stopped the run."""

    def __init__(self, message: str = "Stopped by the user.") -> None:
        super().__init__(message)
