"""One package per reproduced paper; :mod:`dcnsim.repro.registry` lists them."""
