"""The views of the panels (tabs) of the main window.

Which panels exist, in which order, with which model and view, is declared once in
:data:`ntkviz.panels.PANELS`; a view is a :class:`ntkviz.gui.panels._base.QtPanel`
subclass in a module of this package.
"""
