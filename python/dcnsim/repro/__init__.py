"""The paper reproductions behind ``dcnsim reproduce <paper>``.

One shared core and one package per paper:

- :mod:`dcnsim.repro.core`: running the cells (cache, process pool or Dask, progress,
  Ctrl-C) and the driver :func:`~dcnsim.repro.core.drive` with the
  :class:`~dcnsim.repro.core.Reproduction` hooks a paper fills in;
- :mod:`dcnsim.repro.cells`: the shared ``Cell``, ``RunResult`` and ``Grid``;
- :mod:`dcnsim.repro.checks`: the one ``Check`` type and its status helpers;
- :mod:`dcnsim.repro.tables`, :mod:`dcnsim.repro.figures`: pieces of ``table.md`` and of
  the PNG figures; :mod:`dcnsim.repro.units`, :mod:`dcnsim.repro.stats`: unit parsing and
  the mean with its standard error;
- :mod:`dcnsim.repro.registry`: the papers (name, package, description);
- :mod:`dcnsim.repro.papers`: ``mswift``, ``smartt``, ``prioplus``, ``laps`` and
  ``dctcp_vs_swift``, each with ``runs`` (experiments, cells, per-run results),
  ``checks``, ``tables`` (``table.md`` blocks and ``runs.csv``) and ``figures``.

The experiments each paper runs, its setup, the paper's numbers and the checks are
described in docs/reproductions/<paper>.md.
"""
