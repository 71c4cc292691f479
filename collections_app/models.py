"""The collection data model: collections, their members, topics, documents, runs and pools.

Run entries are not stored one row per line: a campaign has 100+ runs x 50 topics x
1000 lines. Each (run, topic) ranking is one ``RunRanking`` row holding the docnos and
scores as compact binary arrays, already sorted in trec_eval order (score descending,
ties by docno descending). See docs/architecture.md for the reasoning.
"""
from __future__ import annotations

from django.conf import settings
from django.db import models

from collections_app import scales


class Collection(models.Model):
    """A test collection under construction: documents, topics, runs, pools and judgments."""

    # Set for one request by collections_app.access.collection_for_user (not columns): the viewer's
    # role and whether they may see runs, pools and evaluation.
    viewer_role: str
    viewer_sees_systems: bool

    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=100, unique=True)
    description = models.TextField(blank=True)
    guidelines = models.TextField(blank=True, help_text="Judging guidelines shown to assessors.")
    scale = models.JSONField(default=list, help_text="Ordered grades: [{grade, name, key}, ...].")
    relevant_threshold = models.IntegerField(
        default=1, help_text="Lowest grade that counts as relevant for binary measures (trec_eval -l)."
    )
    assessors_see_systems = models.BooleanField(
        default=False,
        help_text="Let assessors see runs, pools' contributing systems and evaluation pages. Off by default: "
        "assessors who know which systems retrieved a document or how they score judge with bias.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        scales.validate_scale(self.scale)

    @property
    def grades(self) -> list[int]:
        return [item["grade"] for item in self.scale]

    def is_relevant(self, grade: int) -> bool:
        return grade >= self.relevant_threshold


class Membership(models.Model):
    """A user's role in one collection: leads manage it, assessors judge what they are given."""

    class Role(models.TextChoices):
        LEAD = "lead", "Lead"
        ASSESSOR = "assessor", "Assessor"

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=20, choices=Role.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["collection", "user"], name="membership_unique_user")]

    def __str__(self) -> str:
        return f"{self.user} ({self.role}) in {self.collection}"


class Topic(models.Model):
    """An information need: TREC's title (the query), description and narrative."""

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="topics")
    qid = models.CharField(max_length=100)
    title = models.TextField()
    description = models.TextField(blank=True)
    narrative = models.TextField(blank=True)
    guidelines = models.TextField(
        blank=True, help_text="Markdown shown to assessors beside this topic (rendered sanitised, no raw HTML)."
    )
    metadata = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["collection", "qid"]
        constraints = [models.UniqueConstraint(fields=["collection", "qid"], name="topic_unique_qid")]

    def __str__(self) -> str:
        return f"{self.qid}: {self.title}"


class Document(models.Model):
    """A document of the collection; its text is untrusted and always shown escaped."""

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="documents")
    docno = models.CharField(max_length=255)
    title = models.TextField(blank=True)
    text = models.TextField(blank=True)
    url = models.URLField(max_length=2000, blank=True)
    metadata = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["collection", "docno"]
        constraints = [models.UniqueConstraint(fields=["collection", "docno"], name="document_unique_docno")]

    def __str__(self) -> str:
        return self.docno


class Run(models.Model):
    """A system's submission: one TREC run file (one tag) over the collection's topics."""

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="runs")
    tag = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    group = models.CharField(max_length=200, blank=True, help_text="Owner or team; pools can cap runs per group.")
    uploaded_at = models.DateTimeField(auto_now_add=True)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    source_name = models.CharField(max_length=500, blank=True, help_text="File the run was imported from.")
    checksum = models.CharField(max_length=64, help_text="SHA-256 of the uploaded file's bytes.")
    num_topics = models.PositiveIntegerField(default=0)
    num_lines = models.PositiveIntegerField(default=0)
    num_unknown_docnos = models.PositiveIntegerField(
        default=0, help_text="Distinct docnos the run names that the collection lacks (poolable, not judgeable)."
    )

    class Meta:
        ordering = ["collection", "tag"]
        constraints = [models.UniqueConstraint(fields=["collection", "tag"], name="run_unique_tag")]

    def __str__(self) -> str:
        return self.tag


class RunRanking(models.Model):
    """One run's ranking for one topic, stored as two packed arrays in trec_eval order.

    ``docnos`` is zlib-compressed UTF-8, docnos joined by newlines; ``scores`` is the
    raw bytes of a little-endian float64 array of the same length. Rank 1 comes first.
    Use ``collections_app.runstore`` to pack and unpack; never parse these by hand.
    """

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="rankings")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="run_rankings")
    length = models.PositiveIntegerField()
    docnos = models.BinaryField()
    scores = models.BinaryField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "topic"], name="runranking_unique_topic")]

    def __str__(self) -> str:
        return f"{self.run_id}/{self.topic_id} ({self.length})"


class QrelsSet(models.Model):
    """Judgments imported from a TREC qrels file (an earlier round, or gold labels)."""

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="qrels_sets")
    name = models.CharField(max_length=200)
    source_name = models.CharField(max_length=500, blank=True)
    checksum = models.CharField(max_length=64)
    imported_at = models.DateTimeField(auto_now_add=True)
    imported_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    num_judgments = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["collection", "imported_at"]
        constraints = [models.UniqueConstraint(fields=["collection", "name"], name="qrelsset_unique_name")]

    def __str__(self) -> str:
        return self.name


class QrelsEntry(models.Model):
    """One imported judgment: ``qid iter docno rel``."""

    qrels_set = models.ForeignKey(QrelsSet, on_delete=models.CASCADE, related_name="entries")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="qrels_entries")
    docno = models.CharField(max_length=255)
    iteration = models.CharField(max_length=50, default="0")
    grade = models.IntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["qrels_set", "topic", "docno"], name="qrelsentry_unique_pair")
        ]
        indexes = [models.Index(fields=["topic", "docno"])]

    def __str__(self) -> str:
        return f"{self.topic_id} {self.docno} {self.grade}"


class Pool(models.Model):
    """A set of (topic, document) pairs chosen from runs for judging, with a judging order."""

    class Strategy(models.TextChoices):
        DEPTH = "depth", "Depth-k"
        BUDGET = "budget", "Fixed budget, round-robin by rank"
        FUSION = "fusion", "Fixed budget by fused score"
        SAMPLE = "sample", "Stratified sample by rank (for infAP/xinfAP estimates)"
        # A list of pairs from a file or a qrels set, or the pairs of imported judgments: no runs.
        PAIRS = "pairs", "Listed pairs (from a file, a qrels set or imported judgments)"

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="pools")
    name = models.CharField(max_length=200)
    strategy = models.CharField(max_length=20, choices=Strategy.choices)
    parameters = models.JSONField(default=dict, blank=True)
    runs = models.ManyToManyField(Run, related_name="pools", blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    frozen = models.BooleanField(default=False, help_text="Set when judging starts; a frozen pool never changes.")

    class Meta:
        ordering = ["collection", "-created_at"]
        constraints = [models.UniqueConstraint(fields=["collection", "name"], name="pool_unique_name")]

    def __str__(self) -> str:
        return self.name


class PoolPair(models.Model):
    """One query–document pair to judge, with its place in the judging order and its provenance."""

    pool = models.ForeignKey(Pool, on_delete=models.CASCADE, related_name="pairs")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="pool_pairs")
    docno = models.CharField(max_length=255)
    document = models.ForeignKey(
        Document, null=True, blank=True, on_delete=models.SET_NULL, related_name="pool_pairs",
        help_text="Null while the collection lacks the document's text: poolable, not judgeable.",
    )
    judging_order = models.PositiveIntegerField(help_text="Position in the pool's judging order, from 1.")
    best_rank = models.PositiveIntegerField(help_text="Best (lowest) rank at which any contributing run retrieved it.")
    run_ranks = models.JSONField(default=dict, help_text="{run tag: rank} for every contributing run that retrieved it.")
    fused_score = models.FloatField(null=True, blank=True)
    # Sampled pools only: the rank band the pair was drawn from and the probability that it was
    # drawn (n/N of its band) -- what the xinfAP/infNDCG estimators divide by. Null elsewhere.
    stratum = models.CharField(max_length=50, blank=True, default="")
    inclusion_probability = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["pool", "judging_order"]
        constraints = [
            models.UniqueConstraint(fields=["pool", "topic", "docno"], name="poolpair_unique_pair"),
            models.UniqueConstraint(fields=["pool", "judging_order"], name="poolpair_unique_order"),
        ]

    def __str__(self) -> str:
        return f"{self.topic_id} {self.docno}"


class Job(models.Model):
    """A piece of long work (an upload's import, a pool build) run as a background task.

    The request saves the uploaded files to default storage and enqueues a task; the task
    updates this row as it goes so the page can show progress, then the result or errors.
    """

    class Kind(models.TextChoices):
        TOPICS = "topics", "Import topics"
        DOCUMENTS = "documents", "Import documents"
        RUNS = "runs", "Import runs"
        QRELS = "qrels", "Import qrels"
        POOL = "pool", "Build pool"
        SIMULATE = "simulate", "Budget planner simulation"

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="jobs")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.QUEUED)
    parameters = models.JSONField(default=dict, blank=True)
    files = models.JSONField(default=list, blank=True, help_text="[{name, path}] saved in default storage.")
    progress_done = models.PositiveBigIntegerField(default=0)
    progress_total = models.PositiveBigIntegerField(null=True, blank=True)
    result = models.JSONField(default=dict, blank=True)
    errors = models.JSONField(default=list, blank=True, help_text="Readable problems, one string each.")
    error_code = models.CharField(max_length=50, blank=True)
    task_id = models.CharField(max_length=100, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(
        null=True, blank=True, help_text="Written every few seconds by the worker running the job; the reaper "
        "fails or retries a running job whose heartbeat stopped (its worker died)."
    )
    worker = models.CharField(max_length=200, blank=True, help_text="host:pid of the worker that last ran the job.")
    attempts = models.PositiveSmallIntegerField(default=0)
    history = models.JSONField(default=list, blank=True, help_text="What happened to the job besides its outcome, "
                               "one line each (a worker lost, a retry).")

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} #{self.pk} ({self.status})"

    @property
    def finished(self) -> bool:
        return self.status in (self.Status.SUCCEEDED, self.Status.FAILED)

    @property
    def percent(self) -> int | None:
        if not self.progress_total:
            return None
        return min(100, int(100 * self.progress_done / self.progress_total))
