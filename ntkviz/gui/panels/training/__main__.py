"""``python -m ntkviz.gui.panels.training``: the lazy-training panel on its own."""
import sys

from ntkviz.gui.app import run_standalone
from ntkviz.gui.panels.training import QtTrainingPanel

sys.exit(run_standalone(QtTrainingPanel))
