"""Configure model judges: create one (with its assessor row and first prompt), edit it, version its prompt.

The API key itself never enters the database, a form or a page: a judge names the environment
variable that holds it, and only the worker reads that variable when it calls. Only names ending in
``_API_KEY`` are accepted, so a judge pointed at a lead's own server cannot exfiltrate other
variables of the worker (``SECRET_KEY``, ``DATABASE_URL``).
"""
from __future__ import annotations

import re
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Max

from judging.models import Assessor, Campaign
from model_assessors import prompts
from model_assessors.models import ModelJudge, PromptTemplate

# Only variables named like an API key can be read: a lead who may point a judge at any server must
# not be able to make the worker send it SECRET_KEY, DATABASE_URL or another secret of its environment.
ENV_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,91}_API_KEY$")
NAME = re.compile(r"^[\w.@+-]{1,100}$")
# Fields a lead may set besides the identity ones; each validated by the model's own validators.
OPTIONS = (
    "prompting", "temperature", "max_output_tokens", "max_document_chars", "request_logprobs", "max_pairs",
    "max_tokens", "concurrency", "requests_per_minute", "timeout_seconds", "max_attempts", "backoff_seconds",
    "input_price_per_million", "output_price_per_million",
)


def _check_identity(*, name: str, base_url: str, model: str, api_key_env: str) -> None:
    if not NAME.match(name or ""):
        raise ValidationError("A judge's name is 1–100 letters, digits or . @ + - _ (no spaces).", code="bad_name")
    if not (base_url or "").startswith(("http://", "https://")):
        raise ValidationError("The base URL must start with http:// or https://.", code="bad_url")
    if not (model or "").strip():
        raise ValidationError("Name the model to call.", code="bad_model")
    if api_key_env and not ENV_NAME.match(api_key_env):
        raise ValidationError(
            "Give the NAME of the environment variable that holds the key, never the key itself; only names "
            "ending in _API_KEY (e.g. OPENAI_API_KEY) are read, so no other secret of the worker can be sent.",
            code="bad_key_env",
        )


def _apply_options(judge: ModelJudge, options: dict) -> None:
    unknown = set(options) - set(OPTIONS)
    if unknown:
        raise ValidationError(f"Unknown option(s): {', '.join(sorted(unknown))}.", code="bad_option")
    for name, value in options.items():
        if name.endswith("_per_million") and value is not None:
            value = Decimal(str(value))
        setattr(judge, name, value)
    try:
        judge.full_clean(exclude=["campaign", "assessor", "created_by"])
    except ValidationError as exc:
        raise ValidationError("; ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items()),
                              code="bad_option") from None


@transaction.atomic
def judge_create(*, campaign: Campaign, name: str, base_url: str, model: str, api_key_env: str = "",
                 user=None, **options) -> ModelJudge:
    """Add a model judge to the campaign: an ``Assessor`` of kind model, the judge and its default prompt v1.

    The default prompt is the graded (UMBRELA-style) or binary one, adapted to the collection's scale.
    Raises ValidationError: bad_name, bad_url, bad_model, bad_key_env, bad_option, duplicate_name.
    """
    _check_identity(name=name, base_url=base_url, model=model, api_key_env=api_key_env)
    if ModelJudge.objects.filter(campaign=campaign, name=name).exists():
        raise ValidationError(f"This campaign already has a judge named {name}.", code="duplicate_name")
    assessor = Assessor.objects.create(campaign=campaign, kind=Assessor.Kind.MODEL, worker_id=name)
    judge = ModelJudge(campaign=campaign, assessor=assessor, name=name, base_url=base_url.strip(),
                       model=model.strip(), api_key_env=api_key_env, created_by=user)
    _apply_options(judge, options)
    try:
        with transaction.atomic():
            judge.save()
    except IntegrityError:
        raise ValidationError(f"This campaign already has a judge named {name}.", code="duplicate_name") from None
    system, text = prompts.default_template(binary=judge.prompting == ModelJudge.Prompting.BINARY,
                                            scale=campaign.collection.grades)
    PromptTemplate.objects.create(judge=judge, version=1, system=system, user=text, note="default", created_by=user)
    return judge


@transaction.atomic
def judge_update(*, judge: ModelJudge, base_url: str, model: str, api_key_env: str, **options) -> ModelJudge:
    """Change where and how the judge is called (its name and its labels stay)."""
    _check_identity(name=judge.name, base_url=base_url, model=model, api_key_env=api_key_env)
    judge = ModelJudge.objects.select_for_update().get(pk=judge.pk)
    judge.base_url, judge.model, judge.api_key_env = base_url.strip(), model.strip(), api_key_env
    _apply_options(judge, options)
    judge.save()
    return judge


@transaction.atomic
def prompt_save(*, judge: ModelJudge, system: str, user_text: str, note: str = "", user=None) -> PromptTemplate:
    """Write the judge's prompt as its next version (earlier versions stay, with the calls that used them).

    Raises ValidationError(code="bad_template") naming unknown placeholders or stray braces;
    an unchanged text writes no version and returns the current one.
    """
    problems = prompts.template_problems(system) + prompts.template_problems(user_text)
    if not (user_text or "").strip():
        problems.append("the user message is empty")
    if problems:
        raise ValidationError("; ".join(problems), code="bad_template")
    ModelJudge.objects.select_for_update().filter(pk=judge.pk).first()  # versions of one judge are numbered in turn
    current = judge.current_prompt()
    if current is not None and current.system == system and current.user == user_text:
        return current
    last = judge.prompts.aggregate(n=Max("version"))["n"] or 0
    return PromptTemplate.objects.create(judge=judge, version=last + 1, system=system, user=user_text,
                                         note=(note or "")[:300], created_by=user)
