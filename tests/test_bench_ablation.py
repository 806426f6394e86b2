"""bench/ablation.py: the paired bootstrap interval and the verdict read from it, and every
variant names real RankingConfig settings with the sets it was tuned on."""

from __future__ import annotations

import sys

from pdftui.search.config import RankingConfig

from .conftest import REPO

sys.path.insert(0, str(REPO / "bench"))
import ablation  # noqa: E402  (bench/ablation.py)


def test_the_interval_holds_the_mean_and_is_zero_when_nothing_moved():
    base = {f"q{i}": 0.5 for i in range(20)}
    same = ablation.paired(base, dict(base), 1000, 0)
    assert (same["delta"], same["lo"], same["hi"], same["up"], same["down"]) == (0, 0, 0, 0, 0)
    worse = dict(base, q0=0.0, q1=0.0, q2=0.0, q3=0.0)
    got = ablation.paired(base, worse, 1000, 0)
    assert got["lo"] <= got["delta"] == -0.1 <= got["hi"] < 0
    assert got["down"] == 4 and got["n"] == 20
    assert ablation.paired(base, worse, 1000, 0) == got   # fixed seed: the same interval


def test_a_signal_is_kept_only_for_a_loss_beyond_noise_outside_its_tuning_sets():
    loss = {"delta": -0.1, "lo": -0.2, "hi": -0.01}
    noise = {"delta": -0.1, "lo": -0.2, "hi": 0.02}
    assert ablation.verdict({"dev_page": loss, "para3": noise}, ("dev_page",)) == "removable"
    assert ablation.verdict({"dev_page": noise, "para3": loss}, ("dev_page",)) == "keep: para3"


def test_every_variant_sets_real_settings_and_names_its_tuning_sets():
    known = set(ablation.SETS) | set(ablation.PARTIAL_SETS)
    for name, changes in ablation.VARIANTS.items():
        RankingConfig().updated(changes)   # AttributeError for a setting that is gone
        assert set(ablation.TUNED[name]) <= known, name
