"""``python -m ntkviz.gui.panels.scattering``: the Scattering tab alone (demo, smoke test)."""
import sys

from ntkviz.gui.app import run_standalone
from ntkviz.gui.panels.scattering import QtScatteringPanel

sys.exit(run_standalone(QtScatteringPanel))
