"""The judging round's statements in SQL: the access gate, the claim and the submit of next → submit.

Why hand-written: at saturation the judging API spent more CPU building and compiling these
ORM queries than PostgreSQL spent running them (``benchmarks/bench_api_round.py`` prints the
cost of one round). Here each statement is a fixed string per campaign shape, built once, so a
request only binds its parameters; ``qrelsmith.sql_rows`` turns rows into model instances the
way the ORM does.

The rules are not restated differently: ``allocation.open_items`` (the ORM queryset) stays the
readable definition of an open item (preloading uses it), and
``tests/judging/test_round_sql.py`` holds this SQL equal to it on generated campaign states
(calibration and gold items, split by topic with blocked and absent primaries, live and expired
leases, judged and skipped items), on SQLite and PostgreSQL. The locking protocol is the one
``allocation`` and ``campaign_core.services.leases`` describe; only the statements' text differs.
"""
from __future__ import annotations

from functools import cache

from django.db import connection

from collections_app.models import Collection, Document, Membership, PoolPair, Topic
from judging.models import Assessor, Campaign, Item, Judgment, Lease
from qrelsmith.sql_rows import cursor, datetime_param, execute, fetch_one, layout

ITEM = Item._meta.db_table
LEASE = Lease._meta.db_table
JUDGMENT = Judgment._meta.db_table
ASSESSOR = Assessor._meta.db_table


def _for_update(clause: str) -> str:
    """Return ``clause`` where the database has row locks (PostgreSQL); SQLite's single writer serializes instead."""
    return f" {clause}" if connection.features.has_select_for_update else ""


# --- the access gate -------------------------------------------------------------------------

@cache
def _gate_sql(member_join: bool, vendor: str) -> str:
    assessor, campaign, collection = layout(Assessor, "a"), layout(Campaign, "c"), layout(Collection, "k")
    join = (f"JOIN {Membership._meta.db_table} m ON m.collection_id = k.id AND m.user_id = %(user)s "
            if member_join else "")
    return (f"SELECT {assessor.select}, {campaign.select}, {collection.select} "
            f"FROM {ASSESSOR} a JOIN {Campaign._meta.db_table} c ON c.id = a.campaign_id "
            f"JOIN {Collection._meta.db_table} k ON k.id = c.collection_id {join}"
            f"WHERE a.campaign_id = %(campaign)s AND a.user_id = %(user)s AND a.kind = %(kind)s "
            f"ORDER BY a.id LIMIT 1")


def gate_assessor(*, user_id: int, campaign_id: int, member_join: bool) -> Assessor | None:
    """Return the user's expert assessor row with its campaign and collection (one query); None if there is none.

    ``member_join`` also requires a membership of the campaign's collection (everyone but superusers).
    """
    row = fetch_one(_gate_sql(member_join, connection.vendor),
                    {"campaign": campaign_id, "user": user_id, "kind": Assessor.Kind.EXPERT})
    if row is None:
        return None
    assessor_l, campaign_l, collection_l = layout(Assessor, "a"), layout(Campaign, "c"), layout(Collection, "k")
    assessor = assessor_l.instance(row)
    campaign = campaign_l.instance(row, assessor_l.width)
    collection = collection_l.instance(row, assessor_l.width + campaign_l.width)
    Campaign.collection.field.set_cached_value(campaign, collection)
    Assessor.campaign.field.set_cached_value(assessor, campaign)
    return assessor


# --- what is open ----------------------------------------------------------------------------

def _open_condition(*, by_topic: bool, gold: bool) -> str:
    """The WHERE clause of the items open to %(assessor)s at %(now)s in %(campaign)s (``allocation.open_items``)."""
    mine = f"NOT EXISTS (SELECT 1 FROM {JUDGMENT} j WHERE j.item_id = i.id AND j.assessor_id = %(assessor)s)"
    if gold:
        return f"i.campaign_id = %(campaign)s AND i.is_gold AND {mine}"
    taken = (f"i.judgment_count + (SELECT COUNT(*) FROM {LEASE} l WHERE l.item_id = i.id "
             f"AND l.expires_at > %(now)s AND l.assessor_id <> %(assessor)s)")
    if by_topic:  # the first judgment belongs to the topic's primary assessor (see allocation's docstring)
        taken += (f" + CASE WHEN i.primary_assessor_id IS NULL OR i.primary_assessor_id = %(assessor)s THEN 0 "
                  f"WHEN (SELECT p.blocked FROM {ASSESSOR} p WHERE p.id = i.primary_assessor_id) THEN 0 "
                  f"WHEN EXISTS (SELECT 1 FROM {JUDGMENT} pj WHERE pj.item_id = i.id "
                  f"AND pj.assessor_id = i.primary_assessor_id) THEN 0 ELSE 1 END")
    return (f"i.campaign_id = %(campaign)s AND NOT i.is_gold AND {mine} AND (i.is_calibration OR "
            f"(i.judgment_count < i.required_judgments AND {taken} < i.required_judgments))")


def _order(*, by_topic: bool, gold: bool) -> str:
    if gold:
        return "i.position"
    if by_topic:
        return "CASE WHEN i.primary_assessor_id = %(assessor)s THEN 0 ELSE 1 END, i.priority, i.position"
    return "i.priority, i.position"


@cache
def _candidate_sql(by_topic: bool, gold: bool, tried: int, lock: bool, vendor: str) -> str:
    excluded = "".join(f" AND i.id <> %(tried{n})s" for n in range(tried))
    locking = _for_update("FOR UPDATE OF i SKIP LOCKED") if lock else ""
    return (f"SELECT i.id FROM {ITEM} i WHERE {_open_condition(by_topic=by_topic, gold=gold)}{excluded} "
            f"ORDER BY {_order(by_topic=by_topic, gold=gold)} LIMIT 1{locking}")


@cache
def _shown_sql(open_check: bool, by_topic: bool, gold: bool, vendor: str) -> str:
    item, pair, topic, document = (layout(Item, "i"), layout(PoolPair, "pp"), layout(Topic, "t"),
                                   layout(Document, "d"))
    condition = f" AND {_open_condition(by_topic=by_topic, gold=gold)}" if open_check else ""
    return (f"SELECT {item.select}, {pair.select}, {topic.select}, {document.select} FROM {ITEM} i "
            f"JOIN {PoolPair._meta.db_table} pp ON pp.id = i.pair_id "
            f"JOIN {Topic._meta.db_table} t ON t.id = pp.topic_id "
            f"LEFT JOIN {Document._meta.db_table} d ON d.id = pp.document_id WHERE i.id = %(pk)s{condition}")


def _shown_item(row) -> Item:
    item_l, pair_l, topic_l, document_l = layout(Item, "i"), layout(PoolPair, "pp"), layout(Topic, "t"), layout(Document, "d")
    item = item_l.instance(row)
    offset = item_l.width
    pair = pair_l.instance(row, offset)
    topic = topic_l.instance(row, offset + pair_l.width)
    document = document_l.instance(row, offset + pair_l.width + topic_l.width)
    PoolPair.topic.field.set_cached_value(pair, topic)
    PoolPair.document.field.set_cached_value(pair, document)
    Item.pair.field.set_cached_value(item, pair)
    return item


def item_shown(pk: int) -> Item:
    """Return the item with its pair's topic and document (what a judging page or the API shows)."""
    return _shown_item(fetch_one(_shown_sql(False, False, False, connection.vendor), {"pk": pk}))


class OpenItemClaim:
    """The judging kind's claim statements for ``campaign_core.services.leases.lease_claim``.

    Each is the SQL form of one step of the ORM claim over ``allocation.open_items``: the first
    open candidate (optionally skipping locked rows), a plain row lock, the re-check under the
    lock that also reads what is shown, and the lease upsert.
    """

    def __init__(self, *, assessor: Assessor, now, gold: bool) -> None:
        self.assessor = assessor
        self.by_topic = assessor.campaign.split == Campaign.Split.BY_TOPIC
        self.gold = gold
        self.now = now
        self.params = {"campaign": assessor.campaign_id, "assessor": assessor.pk, "now": datetime_param(now)}

    def candidate(self, tried: list[int], *, skip_locked: bool) -> int | None:
        params = dict(self.params, **{f"tried{n}": pk for n, pk in enumerate(tried)})
        row = fetch_one(_candidate_sql(self.by_topic, self.gold, len(tried), skip_locked, connection.vendor), params)
        return row[0] if row else None

    def lock(self, pk: int) -> None:
        fetch_one(f"SELECT id FROM {ITEM} WHERE id = %(pk)s{_for_update('FOR UPDATE')}", {"pk": pk})

    def recheck(self, pk: int) -> Item | None:
        row = fetch_one(_shown_sql(True, self.by_topic, self.gold, connection.vendor), dict(self.params, pk=pk))
        return _shown_item(row) if row else None

    def lease(self, pk: int, expires_at) -> None:
        lease_write(item_id=pk, assessor_id=self.assessor.pk, now=self.now, expires_at=expires_at)


def is_open(*, assessor: Assessor, item: Item, now) -> bool:
    """Return whether ``item`` is open to the assessor now (the submit path's check when no live lease covers it)."""
    claim = OpenItemClaim(assessor=assessor, now=now, gold=item.is_gold)
    return claim.recheck(item.pk) is not None


# --- leases ----------------------------------------------------------------------------------

def lease_write(*, item_id: int, assessor_id: int, now, expires_at) -> None:
    """Lease the item to the assessor until ``expires_at`` (an old lease of theirs on it is renewed in place)."""
    execute(f"INSERT INTO {LEASE} (item_id, assessor_id, created_at, expires_at) "
            f"VALUES (%(item)s, %(assessor)s, %(now)s, %(expires)s) ON CONFLICT (item_id, assessor_id) "
            f"DO UPDATE SET created_at = excluded.created_at, expires_at = excluded.expires_at",
            {"item": item_id, "assessor": assessor_id, "now": datetime_param(now),
             "expires": datetime_param(expires_at)})


def lease_held(*, assessor_id: int, now) -> int | None:
    """Return the item of the assessor's oldest live lease, or None."""
    row = fetch_one(f"SELECT item_id FROM {LEASE} WHERE assessor_id = %(assessor)s AND expires_at > %(now)s "
                    f"ORDER BY created_at, id LIMIT 1", {"assessor": assessor_id, "now": datetime_param(now)})
    return row[0] if row else None


def lease_renew(*, item_id: int, assessor_id: int, expires_at) -> None:
    execute(f"UPDATE {LEASE} SET expires_at = %(expires)s WHERE item_id = %(item)s AND assessor_id = %(assessor)s",
            {"item": item_id, "assessor": assessor_id, "expires": datetime_param(expires_at)})


def lease_take_live(*, item_id: int, assessor_id: int, now) -> bool:
    """Delete the assessor's live lease on the item; return whether there was one."""
    return execute(f"DELETE FROM {LEASE} WHERE item_id = %(item)s AND assessor_id = %(assessor)s "
                   f"AND expires_at > %(now)s",
                   {"item": item_id, "assessor": assessor_id, "now": datetime_param(now)}) > 0


def lease_drop(*, item_id: int, assessor_id: int) -> None:
    execute(f"DELETE FROM {LEASE} WHERE item_id = %(item)s AND assessor_id = %(assessor)s",
            {"item": item_id, "assessor": assessor_id})


# --- submit ----------------------------------------------------------------------------------

def assessor_lock(assessor_id: int) -> tuple[bool, bool]:
    """Lock the assessor's row and return its (blocked, gold_check_waived) as committed now."""
    row = fetch_one(f"SELECT blocked, gold_check_waived FROM {ASSESSOR} WHERE id = %(pk)s"
                    f"{_for_update('FOR UPDATE')}", {"pk": assessor_id})
    if row is None:
        raise Assessor.DoesNotExist(assessor_id)
    return bool(row[0]), bool(row[1])


def item_lock(*, item_id: int, campaign_id: int) -> Item | None:
    """Lock and return the campaign's item ``item_id``; None when the campaign has no such item."""
    item = layout(Item, "i")
    row = fetch_one(f"SELECT {item.select} FROM {ITEM} i WHERE i.id = %(pk)s AND i.campaign_id = %(campaign)s"
                    f"{_for_update('FOR UPDATE')}", {"pk": item_id, "campaign": campaign_id})
    return item.instance(row) if row else None  # type: ignore[return-value]


def judgments_of_token_or_item(*, token: str, item_id: int, assessor_id: int) -> list[Judgment]:
    """Return the judgment this client token recorded and the assessor's judgment of the item (one query)."""
    judgment = layout(Judgment, "j")
    with cursor() as rows:
        rows.execute(f"SELECT {judgment.select} FROM {JUDGMENT} j WHERE j.client_token = %(token)s "
                       f"OR (j.item_id = %(item)s AND j.assessor_id = %(assessor)s)",
                       {"token": token, "item": item_id, "assessor": assessor_id})
        return [judgment.instance(row) for row in rows.fetchall()]  # type: ignore[misc]


_INSERTED = [f for f in Judgment._meta.concrete_fields if not f.primary_key]


@cache
def _judgment_insert_sql(vendor: str) -> str:
    columns = ", ".join(connection.ops.quote_name(field.column) for field in _INSERTED)
    marks = ", ".join(f"%({field.column})s" for field in _INSERTED)
    return f"INSERT INTO {JUDGMENT} ({columns}) VALUES ({marks}) RETURNING id"


def judgment_insert(judgment: Judgment) -> Judgment:
    """Insert a new judgment (its fields already set) and give it its primary key."""
    values = {field.column: field.get_db_prep_save(field.pre_save(judgment, add=True), connection)
              for field in _INSERTED}  # pre_save: created_at's default, updated_at's auto_now
    row = fetch_one(_judgment_insert_sql(connection.vendor), values)
    judgment.pk = row[0]  # type: ignore[index]
    judgment._state.adding = False
    judgment._state.db = connection.alias
    return judgment


def item_count_bump(item_id: int) -> None:
    execute(f"UPDATE {ITEM} SET judgment_count = judgment_count + 1 WHERE id = %(pk)s", {"pk": item_id})
