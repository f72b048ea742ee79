"""Errors cross process boundaries (process pools, sweeps): they must pickle and unpickle."""

import pickle

import dcnsim


def test_scenario_error_survives_pickling() -> None:
    err = dcnsim.ScenarioError("transport.cc: unknown algorithm 'cubic'")
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is dcnsim.ScenarioError
    assert str(back) == str(err)
