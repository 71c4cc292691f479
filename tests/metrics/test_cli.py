"""CLI: trec_eval's exact output format, several runs, json/csv, -c and warnings."""

import json

from metrics.cli import main

QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 x 1\n"
RUN_A = "1 Q0 a 1 0.5 runA\n1 Q0 c 2 0.9 runA\n1 Q0 z 3 0.1 runA\n"
RUN_B = "1 Q0 b 1 0.9 runB\n1 Q0 a 2 0.8 runB\n2 Q0 x 1 0.1 runB\n"


def files(tmp_path):
    q, a, b = tmp_path / "q", tmp_path / "a", tmp_path / "b"
    q.write_text(QRELS)
    a.write_text(RUN_A)
    b.write_text(RUN_B)
    return str(q), str(a), str(b)


def test_output_bytes_match_trec_eval_format(tmp_path, capsys):
    q, a, _ = files(tmp_path)
    assert main(["--skip-missing", "-q", "-m", "num_ret", "-m", "map", "-m", "P.2", "-m", "relstring", q, a]) == 0
    out = capsys.readouterr()
    assert out.out == (
        "num_ret               \t1\t3\n"
        "map                   \t1\t1.0000\n"
        "P_2                   \t1\t1.0000\n"
        "relstring             \t1\t'21-'\n"
        "num_ret               \tall\t3\n"
        "map                   \tall\t1.0000\n"
        "P_2                   \tall\t1.0000\n"
    )
    assert "1 qrels topic(s) not in the run were skipped" in out.err


def test_official_prints_runid_first_and_default_measures(tmp_path, capsys):
    q, a, _ = files(tmp_path)
    main(["--skip-missing", q, a])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "runid                 \tall\trunA"
    names = [line.split("\t")[0].strip() for line in lines]
    assert names[1:6] == ["num_q", "num_ret", "num_rel", "num_rel_ret", "map"]
    assert names[-1] == "P_1000" and "iprec_at_recall_0.50" in names


def test_complete_flag_averages_missing_topics_as_zero(tmp_path, capsys):
    q, a, _ = files(tmp_path)
    main(["-c", "-m", "map", "-m", "num_q", q, a])
    out = capsys.readouterr()
    assert "num_q                 \tall\t2\n" in out.out
    assert "map                   \tall\t0.5000\n" in out.out
    assert out.err == ""


def test_several_runs_are_separated_by_runid_lines(tmp_path, capsys):
    q, a, b = files(tmp_path)
    main(["--skip-missing", "-m", "P.1", q, a, b])
    assert capsys.readouterr().out == (
        "runid                 \tall\trunA\nP_1                   \tall\t1.0000\n"
        "runid                 \tall\trunB\nP_1                   \tall\t0.5000\n")


def test_json_and_csv_formats(tmp_path, capsys):
    q, a, b = files(tmp_path)
    main(["--skip-missing", "--format", "json", "-q", "-m", "P.1", q, a, b])
    data = json.loads(capsys.readouterr().out)
    assert [d["runid"] for d in data] == ["runA", "runB"]
    assert data[1]["per_topic"]["2"]["P_1"] == 1.0
    main(["--format", "csv", "-m", "P.1", q, b])
    assert capsys.readouterr().out == "runid,measure,qid,value\nrunB,P_1,all,0.5\n"


def test_run_lacking_a_qrels_topic_is_refused_without_c_as_trec_eval_does(tmp_path, capsys):
    q, a, _ = files(tmp_path)
    assert main(["-m", "map", q, a]) == 4
    out = capsys.readouterr()
    assert out.out == "" and "run lacks 1 qrels topic(s): '2'" in out.err


def test_bad_input_exits_2_with_file_and_line(tmp_path, capsys):
    q, _, _ = files(tmp_path)
    bad = tmp_path / "bad"
    bad.write_text("1 Q0 a 1\n")
    assert main([q, str(bad)]) == 2
    assert f"{bad}:1" in capsys.readouterr().err


def test_unknown_measure_exits_1(tmp_path, capsys):
    q, a, _ = files(tmp_path)
    assert main(["-m", "nonsense", q, a]) == 1
    assert "unknown measure" in capsys.readouterr().err


def test_list_shows_registry(capsys):
    assert main(["--list"]) == 0
    out = capsys.readouterr().out
    assert "ndcg_cut" in out and "[not trec_eval]" in out


def test_level_max_docs_and_judged_only_flags(tmp_path, capsys):
    q, a, _ = files(tmp_path)
    main(["--skip-missing", "-l", "2", "-m", "num_rel", q, a])
    assert capsys.readouterr().out == "num_rel               \tall\t1\n"
    main(["--skip-missing", "-M", "1", "-m", "num_ret", q, a])
    assert capsys.readouterr().out == "num_ret               \tall\t1\n"
    main(["--skip-missing", "-J", "-m", "num_ret", q, a])
    assert capsys.readouterr().out == "num_ret               \tall\t2\n"


def test_metrics_package_never_imports_django():
    from pathlib import Path

    import metrics

    root = Path(metrics.__file__).parent
    for path in root.rglob("*.py"):
        text = path.read_text()
        assert "import django" not in text and "from django" not in text, path


def test_collection_size_weighs_utilitys_fourth_coefficient_as_trec_eval_does(tmp_path, capsys):
    # topic 1 of run A: 3 retrieved, 2 relevant, 2 relevant retrieved
    # utility = 1*2 - 1*(3-2) + 0*(2-2) + 0.5*(N + 2 - 3 - 2)
    q, a, _ = files(tmp_path)
    main(["--skip-missing", "-m", "utility.1,-1,0,0.5", q, a])
    assert capsys.readouterr().out == "utility_1,-1,0,0.5    \tall\t-0.5000\n"
    main(["--skip-missing", "-N", "100", "-D", "1", "-m", "utility.1,-1,0,0.5", q, a])
    assert capsys.readouterr().out == "utility_1,-1,0,0.5    \tall\t49.5000\n"
    main(["--skip-missing", "-N", "100", "-m", "map", q, a])
    assert capsys.readouterr().out == "map                   \tall\t1.0000\n"  # no other measure reads -N
