"""``python -m ntkviz.gui.panels.deformation``: the editor alone (demo, smoke test)."""
import sys

from ntkviz.gui.app import run_standalone
from ntkviz.gui.panels.deformation import QtDeformationPanel

sys.exit(run_standalone(QtDeformationPanel))
