"""Everything Qt lives here (PySide6 + pyqtgraph)."""
