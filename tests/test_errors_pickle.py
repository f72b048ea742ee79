"""Errors cross process boundaries (process pools, sweeps): they must pickle and unpickle."""

import pickle

import dcnsim


def test_scenario_error_survives_pickling() -> None:
    err = dcnsim.ScenarioError("transport.cc: unknown algorithm 'cubic'")
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is dcnsim.ScenarioError
    assert str(back) == str(err)


def test_simulation_panic_survives_pickling() -> None:
    # A sweep worker's panic travels back to the parent as this exception.
    err = dcnsim.SimulationPanic('simulator panic while running scenario "x" (seed 1) at sim time 5 ps: boom')
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is dcnsim.SimulationPanic
    assert str(back) == str(err)


def test_output_errors_survive_pickling() -> None:
    from pathlib import Path

    for err in (dcnsim.OutputError("--out afile: is a file, not a directory"),
                dcnsim.ResultsSavedElsewhere("cannot write the results to x (No space left on device); saved them to "
                                             "x.saved-1 instead", {"flows": 3}, Path("x.saved-1"))):
        back = pickle.loads(pickle.dumps(err))
        assert type(back) is type(err) and str(back) == str(err)
    assert back.saved_to == Path("x.saved-1") and back.result == {"flows": 3}
