"""Pure dashboard computations and SVG charts on hand-built data (no database)."""
from __future__ import annotations

import re

import numpy as np
import pytest

from agreement import agreement, cohen_kappa, pairwise_matrix
from judging import charts
from judging.dashboard import compute
from judging.dashboard.choices import CHOICES, DEFAULT, choice

DAY = 86400.0


def arrays(judgments, *, items=4, topics=(0, 0, 1, 1), required=(2, 2, 2, 2), counts=None, gold=None,
           assessors=3, blocked=(), scale=(0, 1, 2, 3), threshold=2, cannot_judge=()):
    """judgments: (item, assessor, grade position or -1, seconds, time)."""
    j = np.array(judgments, dtype=float).reshape(-1, 5)
    if counts is None:
        counts = np.bincount(j[:, 0].astype(int), minlength=items)
    gold = gold or {}
    return compute.CampaignArrays(
        scale=scale, threshold=threshold, topics=[("401", "first"), ("402", "second")][: max(topics) + 1],
        assessors=[{"id": 10 + a, "name": f"a{a}", "kind": "expert", "blocked": a in blocked} for a in range(assessors)],
        item_ids=np.arange(100, 100 + items), item_topic=np.array(topics), required=np.array(required),
        counts=np.asarray(counts), is_gold=np.array([i in gold for i in range(items)]),
        gold_grade=np.array([gold.get(i, np.nan) for i in range(items)], dtype=float),
        j_item=j[:, 0].astype(np.int64), j_assessor=j[:, 1].astype(np.int64), j_grade=j[:, 2].astype(np.int64),
        j_seconds=j[:, 3], j_time=j[:, 4], cannot_judge=tuple(cannot_judge),
    )


def test_progress_clips_each_item_at_its_requirement_and_leaves_gold_out():
    data = arrays([], counts=[3, 1, 0, 2], gold={3: 1})
    done = compute.progress(data)
    assert (done["required"], done["judged"], done["remaining"]) == (6, 3, 3)
    assert [(t["qid"], t["judged"], t["required"]) for t in done["topics"]] == [("401", 3, 4), ("402", 0, 2)]


def test_throughput_and_estimate_by_hand():
    speed = compute.throughput(np.array([0.0, 1800.0, 3600.0]), now=3600.0)
    assert speed["overall_per_hour"] == pytest.approx(3.0) and speed["recent_per_hour"] == pytest.approx(3.0)
    later = compute.throughput(np.array([0.0, 1800.0, 3600.0]), now=3600.0 + 2 * DAY)
    assert later["recent_per_hour"] == 0.0 and later["recent_hours"] == 24.0
    assert (speed["recent_label"], later["recent_label"]) == ("last 1.0 h", "last 24.0 h")
    assert compute.throughput(np.array([0.0, 30.0]), now=600.0)["recent_label"] == "last 10 min"
    assert compute.throughput(np.array([]), now=0.0)["overall_per_hour"] is None
    plan = compute.estimate(seconds=np.array([10.0, 20.0, 30.0]), remaining=360, rate=15.0, recent_per_hour=3.0)
    assert plan["median_seconds"] == 20.0 and plan["active_hours"] == pytest.approx(2.0)
    assert plan["cost"] == pytest.approx(30.0) and plan["wall_hours"] == pytest.approx(120.0)
    assert compute.estimate(seconds=np.array([]), remaining=5, rate=1.0, recent_per_hour=None)["cost"] is None


def test_rating_table_drops_skips_gold_and_blocked_and_binarizes():
    data = arrays([(0, 0, 3, 5, 0), (0, 1, 1, 5, 0), (1, 0, -1, 5, 0), (2, 2, 0, 5, 0), (3, 0, 2, 5, 0)],
                  gold={3: 2}, blocked=(2,))
    table, rows = compute.rating_table(data, binary=False)
    assert table.items == (0,) and table.raters == (0, 1) and table.positions.tolist() == [[3, 1]]
    binary, _ = compute.rating_table(data, binary=True)
    assert binary.categories == (0, 1) and binary.positions.tolist() == [[1, 0]]
    assert rows.tolist() == [0]


def test_group_values_match_the_statistics_directly():
    a = [0, 1, 2, 3, 1, 2]
    b = [0, 1, 1, 3, 2, 2]
    c = [0, 2, 2, 3, 1, 0]
    judgments = [(i, r, g, 5, 0) for r, row in enumerate((a, b, c)) for i, g in enumerate(row)]
    data = arrays(judgments, items=6, topics=(0, 0, 0, 1, 1, 1), required=(3,) * 6)
    table, row_topic = compute.rating_table(data, binary=False)
    triples = [(i, r, g) for i, r, g, _, _ in judgments]
    fleiss = agreement(triples, statistic="fleiss", categories=[0, 1, 2, 3], ci=None)
    all_rows = np.arange(6)
    assert compute.group_value(table, all_rows, choice("fleiss"))["value"] == pytest.approx(fleiss.value)
    # two-assessor statistics → their mean over the three assessor pairs (Light's κ for Cohen's κ)
    pairs = ((a, b), (a, c), (b, c))
    light = np.mean([cohen_kappa(x, y, categories=[0, 1, 2, 3], ci=None).value for x, y in pairs])
    assert compute.group_value(table, all_rows, choice("cohen"))["value"] == pytest.approx(light)
    share = np.mean([np.mean(np.equal(x, y)) for x, y in pairs])
    assert compute.group_value(table, all_rows, choice("percent"))["value"] == pytest.approx(share)
    quadratic = np.mean([cohen_kappa(x, y, categories=[0, 1, 2, 3], weights="quadratic", ci=None).value
                         for x, y in pairs])
    assert compute.group_value(table, all_rows, choice("cohen_quadratic"))["value"] == pytest.approx(quadratic)
    alpha = agreement(triples, statistic="krippendorff", level="interval", categories=[0, 1, 2, 3], ci=None)
    assert compute.group_value(table, all_rows, choice("alpha_interval"))["value"] == pytest.approx(alpha.value)
    topics = compute.per_topic(table, row_topic, data.topics, choice("fleiss"))
    assert [t["qid"] for t in topics] == ["401", "402"] and all(t["n_items"] == 3 for t in topics)
    found = compute.pairs(table, choice("cohen_linear"))
    values, overlaps = compute.pair_matrix(found, np.arange(3), np.array([6, 6, 6]))
    expected = cohen_kappa(a, b, categories=[0, 1, 2, 3], weights="linear", ci=None).value
    assert values[0, 1] == pytest.approx(expected) and values[1, 0] == pytest.approx(expected)
    assert overlaps.tolist() == [[6, 6, 6]] * 3 and values[0, 0] == 1.0


def test_single_labels_give_undefined_not_a_crash():
    data = arrays([(0, 0, 1, 5, 0), (1, 1, 2, 5, 0)])
    table, row_topic = compute.rating_table(data, binary=False)
    assert compute.group_value(table, np.arange(2), choice("cohen")) == {
        "value": None, "n_items": 0, "reason": "no pair judged twice"}
    assert compute.per_topic(table, row_topic, data.topics, choice("cohen")) == []
    assert compute.pairs(table, choice("cohen")).a.size == 0  # the two assessors share no item


def test_over_time_by_day_and_by_completion_order():
    day_two = [(i, r, (i + r) % 2, 5, (DAY if i >= 2 else 0) + r) for i in range(4) for r in range(2)]
    data = arrays(day_two)
    table, _ = compute.rating_table(data, binary=False)
    timeline = compute.over_time(table, data, choice("alpha_nominal"))
    assert timeline["unit"] == "day" and [p["label"] for p in timeline["points"]] == ["1970-01-01", "1970-01-02"]
    assert [p["n_items"] for p in timeline["points"]] == [2, 2]
    same_day = arrays([(i, r, (i * r) % 3, 5, 100 * (40 - i) + r) for i in range(40) for r in range(2)],
                      items=40, topics=(0,) * 40, required=(2,) * 40)
    table, _ = compute.rating_table(same_day, binary=False)
    timeline = compute.over_time(table, same_day, choice("ac1"))
    assert timeline["unit"] == "items in order of completion"
    assert [p["n_items"] for p in timeline["points"]] == [10, 10, 10, 10]
    first = agreement([(i, r, (i * r) % 3) for i in range(30, 40) for r in range(2)], statistic="gwet",
                      categories=[0, 1, 2, 3], ci=None)  # the last-numbered items finished first
    assert timeline["points"][0]["value"] == pytest.approx(first.value)
    few = arrays([(i, r, 1, 5, 100 * i + r) for i in range(4) for r in range(2)])
    table, _ = compute.rating_table(few, binary=False)
    assert [p["n_items"] for p in compute.over_time(table, few, choice("ac1"))["points"]] == [4]


def test_assessor_flags_too_fast_low_agreement_low_gold_and_blocked():
    rows = []
    for i in range(6):  # a0 and a1 agree everywhere, a3 (blocked) too
        rows += [(i, 0, i % 4, 20, 0), (i, 1, i % 4, 20, 0), (i, 3, i % 4, 20, 0)]
    rows += [(0, 2, 2, 1, 0), (1, 2, 3, 1, 0)]  # a2: fast, disagrees on the two pairs it judged
    rows += [(6, 0, 2, 20, 0), (6, 2, 0, 1, 0), (7, 2, 0, 1, 0), (8, 2, 0, 1, 0)]  # gold: a0 right, a2 wrong
    data = arrays(rows, items=9, topics=(0,) * 9, required=(3,) * 9, gold={6: 2, 7: 2, 8: 2}, assessors=4,
                  blocked=(3,))
    table, _ = compute.rating_table(data, binary=False)
    assert table.raters == (0, 1, 2)  # the blocked assessor is out of agreement
    matrix = pairwise_matrix(table, categories=table.categories, statistic="cohen", min_overlap=2)
    agree = np.append(compute.pairs(table, choice("cohen")).mean_with_others(len(table.raters)), np.nan)
    out = compute.assessor_rows(data, agree, choice("cohen"), gold_threshold=0.0, gold_min_answers=3)
    assert out[0]["flags"] == [] and out[0]["gold_accuracy"] == 1.0 and out[0]["gold_answered"] == 1
    assert out[0]["agreement"] == pytest.approx(matrix.mean_agreement(0)) and out[0]["agreement"] > 0.2
    assert out[2]["agreement"] == pytest.approx(matrix.mean_agreement(2))
    assert out[2]["flags"] == ["too fast", "low agreement", "low gold accuracy"]
    assert (out[2]["gold_correct"], out[2]["gold_answered"]) == (0, 3)
    assert out[3]["flags"] == ["blocked"] and out[3]["agreement"] is None
    assert [d["count"] for d in out[0]["distribution"]] == [2, 2, 2, 1]
    lenient = compute.assessor_rows(data, agree, choice("cohen"), gold_threshold=0.0, gold_min_answers=4)
    assert "low gold accuracy" not in lenient[2]["flags"]  # not enough gold answers yet


def test_choices_default_and_every_choice_is_computable():
    assert choice(None).key == DEFAULT and choice("vibes").key == DEFAULT
    judgments = [(i, r, (i * (r + 1)) % 4, 5, 0) for i in range(8) for r in range(3)]
    data = arrays(judgments, items=8, topics=(0,) * 8, required=(3,) * 8)
    table, _ = compute.rating_table(data, binary=False)
    for stat in CHOICES.values():
        found = compute.pairs(table, stat)
        assert list(zip(found.a.tolist(), found.b.tolist())) == [(0, 1), (0, 2), (1, 2)]
        assert compute.group_value(table, np.arange(8), stat)["n_items"] == 8


def test_colour_scale_ends():
    assert charts.colour(1.0) == "#2166ac" and charts.colour(-1.0) == "#b2182b" and charts.colour(0.0) == "#ffffff"
    assert charts.colour(None) == charts.UNDEFINED and charts.colour(5) == charts.colour(1)


def test_heatmap_escapes_names_and_links_and_draws_every_cell():
    names = ['<img src=x onerror="alert(1)">', "bob & co"]
    svg = charts.heatmap(names, [[1.0, None], [None, 1.0]], counts=[[3, 0], [0, 2]],
                         hrefs=[["/a?x=1&y=2", '/b"onmouseover="x'], ["/c", "/d"]], title="<t>")
    assert "<img" not in svg and "&lt;img" in svg and "bob &amp; co" in svg and "<title>&lt;t&gt;</title>" in svg
    assert len(re.findall(r'<rect class="cell"', svg)) == 4
    assert 'href="/a?x=1&amp;y=2"' not in svg  # diagonal cells are not links
    assert 'href="/b&quot;onmouseover=&quot;x"' in svg
    assert svg.count('data-value="undefined"') == 2


def test_bars_and_line_handle_undefined_values_and_escape_labels():
    svg = charts.bars(["<b>1</b>", "two"], [0.5, None], hrefs=["/x", None], marker=0.2)
    assert "&lt;b&gt;1&lt;/b&gt;" in svg and "<b>" not in svg and "undefined" in svg and 'class="marker"' in svg
    assert svg.count('<rect class="bar"') == 1
    line = charts.line(["d1", "d2", "d3", "d4"], [0.1, 0.2, None, 0.4])
    assert line.count("<polyline") == 1 and line.count('class="point"') == 3
    assert charts.line([], []).startswith("<svg")


def test_heatmap_columns_by_most_labels_lowest_agreement_or_flagged_first():
    judgments = [(i, r, (i + r) % 4, 5, 0) for r in range(5) for i in range(2 + 2 * r)]
    data = arrays(judgments, items=10, topics=(0,) * 10, required=(5,) * 10, assessors=5)
    table, _ = compute.rating_table(data, binary=False)
    agree = np.array([0.9, 0.1, np.nan, 0.5, 0.4])
    flagged = np.array([False, True, False, False, False])
    assert compute.heatmap_columns(table, agree, flagged, choose="judgments", limit=3).tolist() == [2, 3, 4]
    assert compute.heatmap_columns(table, agree, flagged, choose="flagged", limit=3).tolist() == [1, 3, 4]
    low = compute.heatmap_columns(table, agree, flagged, choose="lowest", limit=2)
    assert low.tolist() == [3, 4]  # columns 0 and 1 have fewer than MIN_HEATMAP_LABELS labels: last
    assert compute.heatmap_columns(table, agree, flagged, choose="judgments", limit=10).tolist() == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("key", ["cohen", "cohen_quadratic", "scott", "percent", "fleiss", "alpha_ordinal", "ac1"])
def test_per_topic_values_equal_each_topic_alone_and_carry_an_interval(key):
    rng = np.random.default_rng(7)
    judgments = []
    for i in range(40):  # 2 topics × 20 items; 4 assessors, 2 or 3 labels per item
        truth = int(rng.integers(0, 4))
        for r in rng.choice(4, size=2 + i % 2, replace=False).tolist():
            grade = truth if rng.random() < 0.7 else int(rng.integers(0, 4))
            judgments.append((i, r, grade, 5, i * 10 + r))
    data = arrays(judgments, items=40, topics=tuple(i // 20 for i in range(40)), required=(2,) * 40, assessors=4)
    table, row_topic = compute.rating_table(data, binary=False)
    rows = compute.per_topic(table, row_topic, data.topics, choice(key), n_boot=50)
    assert [r["qid"] for r in rows] == ["401", "402"]
    for t, row in enumerate(rows):
        alone = compute.group_value(table, np.flatnonzero(row_topic == t), choice(key))
        assert row["value"] == pytest.approx(alone["value"]) and row["n_items"] == alone["n_items"] == 20
        assert row["ci_low"] <= row["value"] <= row["ci_high"]
    assert compute.per_topic(table, row_topic, data.topics, choice(key)) == [
        {k: v for k, v in r.items() if k not in ("ci_low", "ci_high", "ci_reason")} for r in rows]


def test_could_not_judge_grades_leave_agreement_unless_counted():
    """Scale (-2 broken = could not judge, 0, 1, 2): a -2 label is no opinion on relevance, so by default
    it leaves the table (and the categories); counted, it is a grade like any other."""
    rng = np.random.default_rng(7)
    scale = (-2, 0, 1, 2)
    a = rng.integers(0, 4, 40)
    b = np.where(rng.random(40) < 0.6, a, rng.integers(0, 4, 40))
    judgments = [(i, 0, int(a[i]), 5, i) for i in range(40)] + [(i, 1, int(b[i]), 5, i) for i in range(40)]
    data = arrays(judgments, items=40, topics=(0,) * 40, required=(2,) * 40, assessors=2, scale=scale,
                  threshold=1, cannot_judge=(-2,))
    left_out, _ = compute.rating_table(data, binary=False)
    both = (a > 0) & (b > 0)
    assert left_out.categories == (0, 1, 2) and left_out.label_item.size == int((a > 0).sum() + (b > 0).sum())
    kappa = compute.group_value(left_out, np.arange(len(left_out.items)), choice("cohen"))["value"]
    grade = np.asarray(scale)
    expected = cohen_kappa(grade[a[both]].tolist(), grade[b[both]].tolist(), categories=[0, 1, 2], ci=None).value
    assert kappa == pytest.approx(expected)
    counted, _ = compute.rating_table(data, binary=False, include_cannot_judge=True)
    assert counted.categories == scale and counted.label_item.size == 80
    everything = cohen_kappa(grade[a].tolist(), grade[b].tolist(), categories=list(scale), ci=None).value
    assert compute.group_value(counted, np.arange(len(counted.items)), choice("cohen"))["value"] == pytest.approx(everything)
    assert everything != pytest.approx(expected)
    binary, _ = compute.rating_table(data, binary=True)
    assert binary.label_item.size == left_out.label_item.size  # -2 does not become "not relevant"
    plain = arrays(judgments, items=40, topics=(0,) * 40, required=(2,) * 40, assessors=2, scale=scale, threshold=1)
    assert compute.rating_table(plain, binary=False)[0].categories == scale  # no such grade on the scale


def test_an_assessor_whose_last_label_is_could_not_judge_has_no_label_in_agreement():
    # assessor 0 first said 2, then "could not judge" (-2, position 0): the later word wins, then leaves
    data = arrays([(0, 0, 3, 5, 0), (0, 0, 0, 5, 10), (0, 1, 3, 5, 0), (1, 0, 1, 5, 0), (1, 1, 1, 5, 0)],
                  items=2, topics=(0, 0), required=(2, 2), assessors=2, scale=(-2, 0, 1, 2), cannot_judge=(-2,))
    table, _ = compute.rating_table(data, binary=False)
    assert table.positions.tolist() == [[-1, 2], [0, 0]] and table.categories == (0, 1, 2)
