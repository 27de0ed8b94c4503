"""The report layer shared by the CLI, ``dpcalc table``, plots and the documentation generator.

* :mod:`dpcalc.report.grid` — parameter values (lists, ranges), broadcast grids and row flattening.
* :mod:`dpcalc.report.render` — :class:`Result`, :class:`Column` and the table/JSON/CSV/Markdown/LaTeX renderers.
"""
