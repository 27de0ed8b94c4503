"""The report layer shared by the CLI, ``dpcalc table``, plots and the documentation generator.

* `dpcalc.report.grid` — parameter values (lists, ranges), broadcast grids and row flattening.
* `dpcalc.report.render` — `Result`, `Column` and the table/JSON/CSV/Markdown/LaTeX renderers.
"""
