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
