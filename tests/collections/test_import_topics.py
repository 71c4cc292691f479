import json

import pytest

from collections_app.importers.errors import ImportFailed
from collections_app.models import Topic
from collections_app.services.imports import topics_import
from tests.collections.import_helpers import add_topics, write

TREC = """<top>
<num> Number: 301
<title> International Organized Crime

<desc> Description:
Identify organizations that participate in
international criminal activity.

<narr> Narrative:
A relevant document must name the organization.
</top>

<top>
<num> Number: 302 </num>
<title> Poliomyelitis and Post-Polio </title>
<desc> Description: Is the disease under control? </desc>
<narr> Narrative: Relevant documents discuss cases. </narr>
<lang> en </lang>
</top>
"""


def refused(collection, path, **kwargs) -> list[str]:
    with pytest.raises(ImportFailed) as info:
        topics_import(collection=collection, source=path, **kwargs)
    assert not Topic.objects.filter(collection=collection).exclude(qid="old").exists()
    return [str(problem) for problem in info.value.problems]


def test_trec_sgml_topics_keep_title_description_narrative_and_extra_tags(collection, tmp_path):
    summary = topics_import(collection=collection, source=write(tmp_path, "topics.301-302", TREC))
    assert summary.created == 2
    first, second = Topic.objects.order_by("qid")
    assert (first.qid, first.title) == ("301", "International Organized Crime")
    assert first.description == "Identify organizations that participate in international criminal activity."
    assert first.narrative == "A relevant document must name the organization."
    assert (second.title, second.description) == ("Poliomyelitis and Post-Polio", "Is the disease under control?")
    assert second.metadata == {"lang": "en"}


def test_gzipped_trec_topics(collection, tmp_path):
    topics_import(collection=collection, source=write(tmp_path, "topics.gz", TREC, gz=True))
    assert Topic.objects.count() == 2


def test_tsv_topics_with_two_or_four_columns(collection, tmp_path):
    path = write(tmp_path, "q.tsv", "1\tcheap flights\n2\tsolar power\tWhat is it?\tAny source.\n")
    topics_import(collection=collection, source=path)
    assert list(Topic.objects.values_list("qid", "title", "description", "narrative")) == [
        ("1", "cheap flights", "", ""), ("2", "solar power", "What is it?", "Any source.")]


def test_jsonl_topics_put_unknown_keys_in_metadata(collection, tmp_path):
    line = json.dumps({"qid": "7", "title": "t", "description": "d", "narrative": "n", "lang": "de"})
    topics_import(collection=collection, source=write(tmp_path, "q.jsonl", line + "\n"))
    topic = Topic.objects.get()
    assert (topic.qid, topic.title, topic.description, topic.narrative, topic.metadata) == ("7", "t", "d", "n", {"lang": "de"})


def test_explicit_format_overrides_detection(collection, tmp_path):
    topics_import(collection=collection, source=write(tmp_path, "q.txt", "<b>1\ttitle\n"), format="tsv")
    assert Topic.objects.get().qid == "<b>1"


def test_duplicate_qid_in_the_file_names_both_lines(collection, tmp_path):
    problems = refused(collection, write(tmp_path, "q.tsv", "1\ta\n2\tb\n1\tc\n"))
    assert problems == ["q.tsv:3: topic '1' appears again (first on line 1)"]


def test_qid_already_in_the_collection_is_refused(collection, tmp_path):
    add_topics(collection, "old")
    problems = refused(collection, write(tmp_path, "q.tsv", "new\tx\nold\ty\n"))
    assert problems == ["q.tsv:2: topic 'old' already exists in the collection"]


@pytest.mark.parametrize(("name", "text", "expected"), [
    ("q.tsv", "1\ta\n2\n", "q.tsv:2: expected 2 to 4 tab-separated columns"),
    ("q.jsonl", '{"qid": "1", "title": "a"}\n{"qid": \n', "q.jsonl:2: invalid JSON"),
    ("q.txt", "<top>\n<num> Number: 5\n<title> x\n", "q.txt:1: <top> block is never closed"),
    ("q.tsv", b"1\ta\n2\t\xe9t\xe9\n", "q.tsv:2: is not valid UTF-8 text"),
    ("q.tsv", "\n\n", "q.tsv: the file is empty"),
    ("q.tsv", "1\t\n", "q.tsv:1: topic '1' has no title"),
])
def test_bad_topic_files_name_the_line(collection, tmp_path, name, text, expected):
    problems = refused(collection, write(tmp_path, name, text))
    assert any(problem.startswith(expected) for problem in problems), problems


def test_overlong_qid_is_refused_before_the_database_sees_it(collection, tmp_path):
    problems = refused(collection, write(tmp_path, "q.tsv", f"{'9' * 101}\ttitle\n"))
    assert len(problems) == 1
    assert problems[0].startswith("q.tsv:1: qid ") and "is 101 characters long (at most 100)" in problems[0]
