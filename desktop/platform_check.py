"""Before Qt starts on Linux: can its platform plugin load? If not, say which packages to install.

Qt's own message when the X11 (xcb) plugin cannot load ("Could not load the Qt platform plugin
"xcb" … This application failed to start") names no package, and it aborts the process. This
module looks at the plugin's shared libraries with ``ldd`` first (no Qt import) and turns the
missing ones into the install line for Debian/Ubuntu and Fedora/RHEL.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

# shared library -> (Debian/Ubuntu package, Fedora/RHEL package)
PACKAGES: dict[str, tuple[str, str]] = {
    "libxcb-icccm.so.4": ("libxcb-icccm4", "xcb-util-wm"),
    "libxcb-keysyms.so.1": ("libxcb-keysyms1", "xcb-util-keysyms"),
    "libxcb-cursor.so.0": ("libxcb-cursor0", "xcb-util-cursor"),
    "libxcb-image.so.0": ("libxcb-image0", "xcb-util-image"),
    "libxcb-util.so.1": ("libxcb-util1", "xcb-util"),
    "libxcb-render-util.so.0": ("libxcb-render-util0", "xcb-util-renderutil"),
    "libxcb-randr.so.0": ("libxcb-randr0", "libxcb"),
    "libxcb-shm.so.0": ("libxcb-shm0", "libxcb"),
    "libxcb-sync.so.1": ("libxcb-sync1", "libxcb"),
    "libxcb-xfixes.so.0": ("libxcb-xfixes0", "libxcb"),
    "libxcb-render.so.0": ("libxcb-render0", "libxcb"),
    "libxcb-shape.so.0": ("libxcb-shape0", "libxcb"),
    "libxcb-xkb.so.1": ("libxcb-xkb1", "libxcb"),
    "libxcb-xinput.so.0": ("libxcb-xinput0", "libxcb"),
    "libxcb-glx.so.0": ("libxcb-glx0", "libxcb"),
    "libxcb.so.1": ("libxcb1", "libxcb"),
    "libX11-xcb.so.1": ("libx11-xcb1", "libX11-xcb"),
    "libX11.so.6": ("libx11-6", "libX11"),
    "libxkbcommon.so.0": ("libxkbcommon0", "libxkbcommon"),
    "libxkbcommon-x11.so.0": ("libxkbcommon-x11-0", "libxkbcommon-x11"),
    "libGL.so.1": ("libgl1", "libglvnd-glx"),
    "libEGL.so.1": ("libegl1", "libglvnd-egl"),
    "libGLX.so.0": ("libglx0", "libglvnd-glx"),
    "libOpenGL.so.0": ("libopengl0", "libglvnd-opengl"),
    "libGLdispatch.so.0": ("libglvnd0", "libglvnd"),
    "libfontconfig.so.1": ("libfontconfig1", "fontconfig"),
    "libfreetype.so.6": ("libfreetype6", "freetype"),
    "libglib-2.0.so.0": ("libglib2.0-0", "glib2"),
    "libdbus-1.so.3": ("libdbus-1-3", "dbus-libs"),
    "libSM.so.6": ("libsm6", "libSM"),
    "libICE.so.6": ("libice6", "libICE"),
    "libwayland-client.so.0": ("libwayland-client0", "libwayland-client"),
    "libwayland-cursor.so.0": ("libwayland-cursor0", "libwayland-cursor"),
}
_NOT_FOUND = re.compile(r"^\s*(\S+)\s*=>\s*not found", re.M)
_IMPORT_LIB = re.compile(r"(lib[\w.+-]+\.so(?:\.\d+)*)")


def missing_libraries(ldd_output: str) -> list[str]:
    """The libraries ``ldd`` could not find, in order, each once."""
    return list(dict.fromkeys(_NOT_FOUND.findall(ldd_output)))


def install_lines(libraries: list[str]) -> str:
    """The package-manager lines that install ``libraries`` (unknown ones are named as they are)."""
    debian = list(dict.fromkeys(PACKAGES[lib][0] for lib in libraries if lib in PACKAGES))
    fedora = list(dict.fromkeys(PACKAGES[lib][1] for lib in libraries if lib in PACKAGES))
    unknown = [lib for lib in libraries if lib not in PACKAGES]
    lines = []
    if debian:
        lines.append(f"  Debian/Ubuntu:  sudo apt-get install {' '.join(debian)}")
        lines.append(f"  Fedora/RHEL:    sudo dnf install {' '.join(fedora)}")
    if unknown:
        lines.append(f"  and the package that provides: {', '.join(unknown)}")
    return "\n".join(lines)


def _plugin(name: str) -> Path | None:
    spec = importlib.util.find_spec("PySide6")  # finds the package without loading Qt
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(next(iter(spec.submodule_search_locations)))
    for candidate in (root / "Qt" / "plugins" / "platforms" / name, root / "plugins" / "platforms" / name):
        if candidate.exists():
            return candidate
    return None


def _platform(env) -> str | None:
    """The platform plugin Qt will try, or None when this check does not apply."""
    chosen = env.get("QT_QPA_PLATFORM", "").split(":")[0].strip().lower()
    if chosen:
        return chosen if chosen in ("xcb", "wayland") else None  # offscreen, vnc…: nothing to check
    if env.get("WAYLAND_DISPLAY"):
        return "wayland"
    return "xcb"


def qt_platform_problem(env=None) -> str | None:
    """Why the window cannot open on this Linux machine, with the install line; None if it can
    (or when it cannot be told without starting Qt)."""
    env = os.environ if env is None else env
    if not sys.platform.startswith("linux"):
        return None
    platform = _platform(env)
    if platform is None:
        return None
    if platform == "xcb" and not env.get("DISPLAY"):
        return ("The window cannot open: there is no display (DISPLAY is not set).\n"
                "Start it from a desktop session, or use the terminal: hr-assistant chat")
    plugin = _plugin("libqxcb.so" if platform == "xcb" else "libqwayland.so")
    ldd = shutil.which("ldd")
    if plugin is None or ldd is None:
        return None
    try:
        out = subprocess.run([ldd, str(plugin)], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    missing = missing_libraries(out)
    if not missing:
        return None
    kind = "X11 (xcb)" if platform == "xcb" else "Wayland"
    return (f"The window cannot open: Qt's {kind} platform plugin needs system libraries that are not "
            f"installed: {', '.join(missing)}.\nInstall them:\n{install_lines(missing)}\n"
            "Meanwhile the terminal works: hr-assistant chat")


def import_problem(exc: ImportError) -> str:
    """The message for Qt's own libraries failing to load (``libGL.so.1: cannot open …``)."""
    found = _IMPORT_LIB.search(str(exc))
    if found:
        return (f"The window cannot open: the system library {found.group(1)} is missing.\nInstall it:\n"
                f"{install_lines([found.group(1)])}\nMeanwhile the terminal works: hr-assistant chat")
    return f"The window cannot open: Qt could not be loaded ({exc}).\nMeanwhile the terminal works: hr-assistant chat"
