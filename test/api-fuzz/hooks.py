"""Schemathesis hooks for DocRender's API fuzzing (run by test/api-fuzz/run.ts).

The machines that run the fuzzer reach no public address, and the service
refuses private ones unless ALLOW_PRIVATE_HOSTS lets them through (run.ts
lets 127.0.0.1 through). So in the schema-valid (positive) cases, every URL
the service would fetch or call (page.url, storage.preSignedUrl, webhook.url,
overlay image backgrounds aside) is pointed at run.ts's local receiver, which
answers 200 with a small page; the rest of the request is sent as generated.
Negative cases go out untouched: they must be refused whatever their URLs.
"""

import os

import schemathesis
from schemathesis import GenerationMode

RECEIVER = os.environ["API_FUZZ_RECEIVER"]

# (section, field) of every URL the service connects to on the caller's behalf.
URL_FIELDS = (("page", "url"), ("storage", "preSignedUrl"), ("webhook", "url"))


@schemathesis.hook
def before_call(context, case, **kwargs):
    meta = case.meta
    if meta is None or meta.generation.mode != GenerationMode.POSITIVE or not isinstance(case.body, dict):
        return
    for section, field in URL_FIELDS:
        part = case.body.get(section)
        if isinstance(part, dict) and isinstance(part.get(field), str):
            part[field] = f"{RECEIVER}/{section}"
