"""The strategy matrix every scenario test shares.

A scenario's test file declares CORRECT (name -> command builder taking task.params), WRONG (the
same, for plausible mistakes) and EXPECTED_WRONG (name -> {tier: failure class}), then takes its
tests from strategy_tests(). The oracle and naive commands are covered for every task and contract
by tests/test_tasks.py.
"""

import pytest


def strategy_tests(tasks, correct: dict, wrong: dict, expected_wrong: dict):
    hostile = [t for t in tasks if t.hostile]
    by_id = {"ids": lambda t: t.id}

    @pytest.mark.parametrize("strategy", correct)
    @pytest.mark.parametrize("task", hostile, **by_id)
    def correct_strategy_passes(outcome, task, strategy):
        failure, execution = outcome(task, correct[strategy](task.params))
        assert failure == "pass", execution

    @pytest.mark.parametrize("strategy", wrong)
    @pytest.mark.parametrize("task", hostile, **by_id)
    def wrong_strategy_fails_as_expected(outcome, task, strategy):
        failure, execution = outcome(task, wrong[strategy](task.params))
        assert failure == expected_wrong[strategy][task.tier], execution

    def two_wrong_strategies_reject_every_hostile_task():
        assert len(correct) >= 3
        for task in hostile:
            assert sum(expected_wrong[w][task.tier] != "pass" for w in wrong) >= 2, task.id

    return (
        correct_strategy_passes,
        wrong_strategy_fails_as_expected,
        two_wrong_strategies_reject_every_hostile_task,
    )
