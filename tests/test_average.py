"""``train.py average``: the mean of several networks' weights."""

import json

import numpy as np
import pytest

from imago.nn.averaging import average_networks
from imago.nn.networks import create_network, load_network
from imago.training.average import average_main


def _saved(path, seed, filters=8):
    import keras
    keras.utils.set_random_seed(seed)
    net = create_network("residual", 9, "history", blocks=1, filters=filters)
    return net.save(path, command=f"made with seed {seed}", metrics={"9": {"top1": 0.5}},
                    note=f"the network of seed {seed}")


def test_the_mean_of_every_weight_is_written_with_its_parents(tmp_path, capsys):
    a, b = _saved(tmp_path / "a.keras", 1), _saved(tmp_path / "b.keras", 2)
    out = tmp_path / "soup" / "mean.keras"
    assert average_main([str(out), str(a), str(b)]) == 0
    assert "mean of 2 networks" in capsys.readouterr().out
    wa, wb = load_network(a).model.get_weights(), load_network(b).model.get_weights()
    mean = load_network(out).model.get_weights()
    assert len(mean) == len(wa)
    for x, y, m in zip(wa, wb, mean):
        np.testing.assert_allclose(m, (x + y) / 2, rtol=1e-6, atol=1e-7)
    meta = json.loads(out.with_suffix(".json").read_text())
    assert [p["model"] for p in meta["averaged_from"]] == [str(a), str(b)]
    assert meta["averaged_from"][1]["command"] == "made with seed 2"
    assert meta["command"].startswith("train.py average")
    assert "metrics" not in meta  # the first parent's figures are not the mean's
    assert "note" not in meta  # nor a note written into its sidecar by hand


def test_networks_of_other_shapes_are_refused_by_name(tmp_path, capsys):
    a, b = _saved(tmp_path / "a.keras", 1), _saved(tmp_path / "wide.keras", 2, filters=16)
    out = tmp_path / "mean.keras"
    assert average_main([str(out), str(a), str(b)]) == 1
    err = capsys.readouterr().err
    assert "wide.keras is not the same network" in err
    assert not out.exists()


def test_one_network_or_a_missing_file_is_a_readable_error(tmp_path, capsys):
    a = _saved(tmp_path / "a.keras", 1)
    assert average_main([str(tmp_path / "m.keras"), str(a)]) == 1
    assert "at least two" in capsys.readouterr().err
    assert average_main([str(tmp_path / "m.keras"), str(a), str(tmp_path / "no.keras")]) == 1
    assert "no.keras" in capsys.readouterr().err
    with pytest.raises(ValueError, match="at least two"):
        average_networks([a])


def test_weights_give_any_combination_summing_to_one(tmp_path, capsys):
    a, b = _saved(tmp_path / "a.keras", 1), _saved(tmp_path / "b.keras", 2)
    out = tmp_path / "past.keras"
    assert average_main([str(out), str(a), str(b), "--weights", "1.5", "-0.5"]) == 0
    assert "weighted combination of 2 networks" in capsys.readouterr().out
    net = load_network(out)
    wa, wb = load_network(a).model.get_weights(), load_network(b).model.get_weights()
    for variable, x, y, m in zip(net.model.weights, wa, wb, net.model.get_weights()):
        expected = 1.5 * x - 0.5 * y
        if "variance" in variable.path:
            expected = np.maximum(expected, 0.0)  # a variance never goes below 0
            assert (m >= 0).all()
        np.testing.assert_allclose(m, expected, rtol=1e-5, atol=1e-6)
    meta = json.loads(out.with_suffix(".json").read_text())
    assert [p["share"] for p in meta["averaged_from"]] == [1.5, -0.5]
    assert meta["command"].endswith("--weights 1.5 -0.5")


@pytest.mark.parametrize("weights, message", [
    (["0.5"], "1 weights for 2 networks"),
    (["0.7", "0.7"], "must sum to 1, not 1.4"),
    (["nan", "1"], "finite"),
])
def test_bad_weights_are_named_and_nothing_is_written(tmp_path, capsys, weights, message):
    a, b = _saved(tmp_path / "a.keras", 1), _saved(tmp_path / "b.keras", 2)
    out = tmp_path / "bad.keras"
    assert average_main([str(out), str(a), str(b), "--weights", *weights]) == 1
    assert message in capsys.readouterr().err
    assert not out.exists()
