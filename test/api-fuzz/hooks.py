"""Schemathesis hooks for DocRender's API fuzzing (run by test/api-fuzz/run.ts).

1. Where the fuzzer's URLs go. The machines that run the fuzzer reach no
   public address, and the service refuses private ones unless
   ALLOW_PRIVATE_HOSTS lets them through (run.ts lets 127.0.0.1 through). So
   in the schema-valid (positive) cases, every URL the service would fetch or
   call (page.url, a template's variables.page.url, a merge part's page.url,
   storage.preSignedUrl, webhook.url, a process request's documentUrl) is pointed at run.ts's local receiver,
   which answers 200 with a small page. Likewise the base64 HTML fields
   (page.html, htmlTemplate, pdf.headerHtml, footerHtml) are re-encoded as the
   UTF-8 of their bytes, a rule the document cannot state (see 2), so that the
   positive cases render rather than stop at that 400. The rest of the request
   is sent as generated. Negative cases go out untouched: they must be refused
   whatever their URLs.

2. Which schema-valid bodies the service may still refuse. The OpenAPI
   document states every rule JSON Schema can express; the rules below are
   the ones it cannot, each with the reason. `positive_data_acceptance` takes
   400 (schemathesis.toml) and `refused_only_beyond_json_schema` judges every
   such 400: it passes only when each field the answer names is refused by
   one of these rules, and fails on any other 400 to a schema-valid body.
"""

import base64
import binascii
import os
import re
from dataclasses import dataclass

import schemathesis
from schemathesis import GenerationMode

RECEIVER = os.environ["API_FUZZ_RECEIVER"]

# Where, inside a body, an object holds a URL field the service connects to.
URL_FIELDS = (("page", "url"), ("storage", "preSignedUrl"), ("webhook", "url"))


def _point_at_receiver(body, section, field):
    part = body.get(section) if isinstance(body, dict) else None
    if isinstance(part, dict) and isinstance(part.get(field), str):
        part[field] = f"{RECEIVER}/{section}"


# (section, field) of the base64 text the service decodes as UTF-8.
TEXT_FIELDS = (("page", "html"), ("page", "htmlTemplate"), ("pdf", "headerHtml"), ("pdf", "footerHtml"))


def _as_utf8(body, section, field):
    """Re-encodes a base64 field as the UTF-8 of its bytes (bad sequences replaced), so that the render runs."""
    part = body.get(section) if isinstance(body, dict) else None
    encoded = part.get(field) if isinstance(part, dict) else None
    if not isinstance(encoded, str):
        return
    compact = re.sub(r"[\t\n\f\r ]", "", encoded)
    try:
        raw = base64.b64decode(compact + "=" * (-len(compact) % 4), validate=True)
    except (binascii.Error, ValueError):
        return
    part[field] = base64.b64encode(raw.decode("utf-8", "replace").encode("utf-8")).decode("ascii")


@schemathesis.hook
def before_call(context, case, **kwargs):
    meta = case.meta
    if meta is None or meta.generation.mode != GenerationMode.POSITIVE or not isinstance(case.body, dict):
        return
    body = case.body
    parts = body.get("parts")
    items = body.get("items")
    # The request itself, a template's stored variables, the parts of a merge, a batch's defaults and items.
    lists = (*(parts if isinstance(parts, list) else ()), *(items if isinstance(items, list) else ()))
    for holder in (body, body.get("variables"), body.get("defaults"), *lists):
        for section, field in URL_FIELDS:
            _point_at_receiver(holder, section, field)
        # A page's data by reference is read (an s3:// key would be refused outside the caller's own uploads): the receiver answers a JSON object.
        page = holder.get("page") if isinstance(holder, dict) else None
        if isinstance(page, dict) and isinstance(page.get("templateDataUrl"), str):
            page["templateDataUrl"] = f"{RECEIVER}/templateDataUrl"
        for section, field in TEXT_FIELDS:
            _as_utf8(holder, section, field)
    # A process request's documentUrl is fetched: the receiver answers it (with a page, which is no PDF).
    if isinstance(body.get("documentUrl"), str):
        body["documentUrl"] = f"{RECEIVER}/documentUrl"
    # A batch's itemsUrl is fetched too (an s3:// key would be refused outside the caller's own uploads).
    if isinstance(body.get("itemsUrl"), str):
        body["itemsUrl"] = f"{RECEIVER}/itemsUrl"


@dataclass(frozen=True)
class Rule:
    """A rule the service enforces that JSON Schema cannot state."""

    # The `fields` key of the 400, searched (so `page.html` also matches `parts.0.page.html`).
    field: str
    # The message the service gives for this rule, searched.
    message: str
    # Why the document cannot say it.
    reason: str
    # Only on these operations (by operationId); None for every operation.
    operations: tuple = None


# Operations that merge the request over a stored template before checking it.
TEMPLATE_RENDERS = ("renderTemplate", "renderTemplateSync", "renderTemplateAsync")
MERGES = ("mergePdf", "mergePdfSync", "mergePdfAsync")
# Operations that process an existing PDF (lib/schemas/process-requests.ts).
PROCESSES = ("processPdf", "processPdfSync", "processPdfAsync")

# What the options merged over a stored template are refused for (lib/schemas/render-requests.ts and
# render-options.ts): the rules between fields, and fields a whole object needs that the request left to the template.
MERGED_RULES = (
    r"^(Exactly one of page\.url, page\.html or page\.htmlTemplate is required"
    r"|Only one of page\.url, page\.html or page\.htmlTemplate may be given"
    r"|Only used together with page\.htmlTemplate|Not applicable to png|Cannot be used together with fullPage"
    r"|Cannot be combined with visible|Required|.* × deviceScaleFactor must be at most .*"
    r"|Give url or domain: the page is given as HTML, so the cookie has no site)$"
)

BEYOND_JSON_SCHEMA = (
    Rule(
        r"^(file|fileUrl)$",
        r".",
        "What a font upload holds is read as a font (TrueType, OpenType, WOFF or WOFF2, with a family name fontkit "
        "reads: lib/fonts/user-fonts/font-file.ts), and a fileUrl is read from the caller's own uploads: the bytes' "
        "grammar and the account's keys, not a pattern.",
        ("createFont",),
    ),
    Rule(
        r"(^|\.)pdf\.watermark\.fontFamily$",
        r'^(The family name may hold letters, digits, spaces, "-", "_" and "\." only|The family name must be at most \d+ characters'
        r'|".*" is a keyword of CSS, not a family)$',
        "A family name is letters and digits of any script (Unicode's L and N classes) with spaces, - _ and .: a "
        "pattern with Unicode property escapes, which the fuzzer's regular expressions do not read; CSS keywords "
        "(inherit, initial…) are no family (lib/fonts/family-names.ts).",
    ),
    Rule(
        r"(^|\.)page\.templateDataUrl$",
        r"^(Give page\.templateData or page\.templateDataUrl, not both|Only used together with page\.htmlTemplate)$",
        "On a template render the request is merged over the stored template first: data by value in one and by "
        "reference in the other, or a reference where the merged page has no htmlTemplate, only shows once merged.",
        TEMPLATE_RENDERS,
    ),
    Rule(
        r"(^|\.)(page\.(html|htmlTemplate)|pdf\.(headerHtml|footerHtml))$",
        r"^(Must be base64-encoded UTF-8 text|Must not be empty)$",
        "The base64 must decode to UTF-8 (the document's pattern checks the base64; "
        "UTF-8 inside it has no JSON Schema form), and a lone byte order mark decodes to no text.",
    ),
    Rule(
        r"(^|\.)eInvoice\.xmlTemplate$",
        r"^Must be valid base64$",
        "The base64 must decode to UTF-8 text.",
    ),
    Rule(
        r"(^|\.)eInvoice\.(xml|xmlTemplate|profile)$",
        r"^(Must be at most \d+ bytes decoded|Must be base64-encoded UTF-8 text|Must not contain a DOCTYPE"
        r"|Not well-formed XML|Not readable XML|Must not nest elements more than|The root element must be"
        r"|Its guideline identifier)",
        "The XML (given, or made from xmlTemplate) must be a well-formed CII invoice without a DOCTYPE, nested at "
        "most 100 deep, whose guideline identifier names the profile: what the decoded XML says has no JSON Schema form.",
    ),
    Rule(
        r"(^|\.)page\.timezone$",
        r"^Unknown time zone",
        "ICU time zone IDs and their aliases, as Chromium resolves them: a list that follows the ICU data.",
    ),
    Rule(
        r"(^|\.)pdf\.(width|height|margin\.(top|bottom|left|right))$",
        r"^(Must be at least 1px|Must be at most 200in)$",
        'A length with a unit ("0in", "5000mm") compares its value in inches: a number inside a string.',
    ),
    Rule(
        r"(^|\.)screenshot\.viewport\.(width|height)$",
        r"× deviceScaleFactor must be at most",
        "The image pixel limit bounds a side times deviceScaleFactor: a product of two fields.",
    ),
    Rule(
        r"(^|\.)(pdf\.(pageRanges|pages|rotate\.pages)|watermark\.pages|pdf\.(header|footer)\.pages|image\.pages)$",
        r"ends before it starts$",
        'A range must not end before it starts ("5-2"): a comparison of two numbers inside a string.',
    ),
    Rule(
        r"(^|\.)pdf\.pages$",
        r"a page may appear once$",
        'pdf.pages names each page once ("2, 1-3" names page 2 twice): overlapping ranges inside one string.',
    ),
    Rule(
        r"(^|\.)pdf\.form(\.fields\..+)?$",
        r"^(The document has no form fields|The document's form|The form has no field of this name|A (text field|check box|radio group) takes"
        r"|This (list|field) takes|Not (one of|among) the options|A push button|This field cannot be filled|No font of the service)",
        "What the document's AcroForm holds (its field names, kinds, options and maximum lengths) and the fonts that "
        "draw a value: known once the document is printed or merged, not from the request.",
    ),
    Rule(
        r"^image\.(pages|dpi|width)$",
        r"^(The document has \d+ page|Names \d+ pages|Page \d+ would be)",
        "The pages a range names and the pixels a page makes depend on the document's page count and page boxes, "
        "not on the request. (What the answer allows, image only with page images, quality not with PNG, protection "
        "and a preview not with images, dpi or width, is in the document: process-requests.ts ANSWER_RULES.)",
        PROCESSES,
    ),
    Rule(
        r"^pdf\.signature\.certify$",
        r"^The document is signed already",
        "Only a first signature may certify: whether the PDF to process carries a signature is in the file, not "
        "the request.",
        PROCESSES,
    ),
    Rule(
        r"(^|\.)(page|webhook)\.headers$",
        r"^Headers may take",
        "Header names and values may take 8 KB together: a sum over the whole object.",
    ),
    Rule(
        r"(^|\.)webhook\.metadata$",
        r"bytes as JSON$",
        "At most 1024 bytes once serialised as JSON: the size of the whole object.",
    ),
    Rule(
        r"(^|\.)protection\.(userPassword|ownerPassword)$",
        r"bytes in UTF-8",
        "A password is cut at 127 bytes of UTF-8; JSON Schema counts characters.",
    ),
    Rule(
        r"(^|\.)pdf\.attachments$",
        r"bytes decoded in total$",
        "The attachments may take 5 MB decoded together: a sum over the array.",
    ),
    Rule(
        r"(^|\.)screenshot\.overlay\.background$",
        r"^Must point to a public address: ",
        "The egress policy, not the URL's syntax: a host that is a literal private, loopback or metadata address, "
        "or localhost, is refused up front unless the deployment's ALLOW_PRIVATE_HOSTS lets it through (run.ts lets "
        "127.0.0.1 through and nothing else), a setting of the deployment the document cannot know. (page.url, "
        "storage, webhook, documentUrl and itemsUrl point at the local receiver in these cases.)",
    ),
    Rule(
        r"(^|\.)(url|preSignedUrl|documentUrl|itemsUrl|background)$",
        r"^The host is not a valid domain name \(a label starting xn-- must be valid punycode\)$",
        "The document's pattern (lib/validation/http-url-pattern.ts) is the service's own, and whatever else it "
        "matches parses; a host label starting xn-- must also decode as punycode to a valid name, which no "
        "regular expression can check.",
    ),
    Rule(
        r"(^|\.)pdf\.(watermark\.image|signature\.appearance\.image)$",
        r"^(The image could not be read|Must be at most \d+ pixels on each side|Is (not )?a (valid |truncated )?(PNG|JPEG)"
        r"|Must not be an animated PNG|Must be a greyscale, RGB or CMYK JPEG|Must not carry more than \d+ bytes of compressed text)",
        "The document's pattern asks for the bytes a PNG or JPEG starts with; what the rest declares (its "
        "dimensions against the pixel bound, its chunks or segments, how far its data inflates) is read from the "
        "decoded image's header (lib/input/image-header.ts), not a pattern's.",
    ),
    Rule(
        r"(^|\.)pdf\.signature\.signer$",
        r"^(No signer named .* is configured|This deployment has no signers configured)$",
        "Which signers exist is the deployment's configuration (SIGNERS, or npm start's development signer), "
        "not the request's: the document cannot list them.",
    ),
    Rule(
        r"(^|\.)pdf\.signature\.appearance\.page$",
        r"^The document has \d+ page\(s\)$",
        "The rectangle's page must exist in the printed document: a page count known once it is printed.",
    ),
    Rule(
        r"^parts\.\d+\.document$",
        r"^(Must not be encrypted|Has no pages|Is not a readable PDF|Must be at most 5 MB decoded|Must have at most"
        r"|Must not|Its |The documents of a merge must have at most)",
        "An existing PDF must parse, must not be encrypted and must stay within the decoder's bounds (objects, "
        "streams and what they inflate to, nesting, page tree, pages and their size: lib/finishing/"
        "pdf-input-bounds.ts): what the decoded file holds has no JSON Schema form.",
        MERGES,
    ),
    Rule(
        r"^(document|password)$",
        r"^(Is not a readable PDF|Has no pages|Must have at most|Must not|Its |Is encrypted|The password does not open)",
        "The PDF to process must parse within the decoder's bounds (lib/finishing/input/pdf-input-bounds.ts) and open with "
        "password when it is encrypted: what the decoded file holds has no JSON Schema form.",
        PROCESSES,
    ),
    Rule(
        r"^documentUrl$",
        r"^(Answered \d+|Could not be fetched|Refused by the network rules|No complete answer|Must be at most"
        r"|Is not a readable PDF|Has no pages|Must have at most|Must not|Its "
        r"|Is encrypted|The password does not open)",
        "documentUrl is fetched when the render runs: what its host answers (a status, a body that is no PDF or "
        "breaks the decoder's bounds, its size) is the host's, not the request's.",
        PROCESSES,
    ),
    Rule(
        r"^(page|screenshot)\.",
        MERGED_RULES,
        "A template render merges the request over the stored template, and the merged options are checked as a "
        "direct render's (exactly one page source, quality not with png, a whole clip…): the stored half is not "
        "in the request the document describes.",
        TEMPLATE_RENDERS,
    ),
    Rule(
        r"^(parts\.\d+\.|items\.\d+\.)?(screenshot\.clip\.(x|y|width|height)|page\.(waitForSelector\.selector|waitForFunction\.pageFunction))$",
        r"^(Required|Must be a number|Must be a string)$",
        "A clip, a waitForSelector or a waitForFunction is whole only once merged over the stored one: what the "
        "request (a template part, a batch item) leaves unset or null must come from the template (or the "
        "batch's defaults).",
        TEMPLATE_RENDERS + MERGES + ("createBatch",),
    ),
    Rule(
        r"(^|\.)(page\.(htmlTemplate|templateData)|pdf\.eInvoice\.xmlTemplate)$",
        r"^(Template could not be rendered|Template has more than|Template is too large or too deeply nested"
        r"|Template runs more than|Rendered HTML is larger than|Must not be nested deeper than)",
        "A Handlebars template must parse and render within its limits (lib/templates/handlebars.ts): a grammar "
        "and a run over templateData, not a pattern; and JSON Schema has no keyword for nesting depth.",
    ),
    Rule(
        r"^pdf\.preview$",
        r"^A preview is answered as previewUrl",
        "pdf.preview is stored beside the file and answered as previewUrl: the raw endpoints, whose answer is the "
        "file alone, share the pdf schema of /sync and /async (and a template's stored pdf may hold it).",
        ("createPdf", "renderTemplate", "mergePdf", "processPdf"),
    ),
    Rule(
        r"^items\.\d+\.pdf\.preview$",
        r"^Not in a batch",
        "A batch item's pdf shares the render endpoints' schema, pdf.preview included; the batch's manifest has no "
        "place for it (and a template item's stored pdf may hold it).",
        ("createBatch",),
    ),
    Rule(
        r"^pdf\.preview\.width$",
        r"^Page \d+ would be",
        "The preview's pixels follow the first page's size, known once the PDF is printed, not from the request.",
    ),
    Rule(
        r"^parts\.\d+\.pdf\.(protection|metadata|pdfa|pdfua|attachments|eInvoice|preview)$",
        r"^Set by the template, and applies to the merged file",
        "A template part's stored pdf may hold what applies to the merged file only: stored data, not the request.",
        MERGES,
    ),
    Rule(
        r"^parts\.\d+\.templateId$",
        r"^Must be a PDF template$",
        "A template part must name a template whose stored output is PDF: stored data, not the request.",
        MERGES,
    ),
    Rule(
        r"(^|\.)(page\.(cookies(\.\d+)?|timezone|waitForSelector\.selector|waitForFunction\.pageFunction)"
        r"|screenshot\.(element|overlay\.(background|filter|margin))|pdf\.(pageRanges|pages|rotate\.pages|headerHtml|footerHtml|watermark\.pages))$",
        r"^(Not a valid (CSS selector|JavaScript expression|page range|CSS colour, gradient or image URL|CSS filter|image URL)"
        r"|Chromium refused a cookie|No visible element matches|The document has fewer pages|The pages to drop carry form fields|Chromium could not print"
        r"|The image with its overlay would be larger|Unknown time zone|Only http and https image URLs)",
        "What the page and Chromium's own parsers decide when it renders (lib/render, PlanStepError): a selector "
        "must be CSS and a pageFunction JavaScript, an element must show up, ranges must fit the page count, a "
        "header may not load a stylesheet, the overlay must be CSS Chromium draws and fit the pixel limit.",
    ),
    Rule(
        r"(^|\.)pdf\.(header|footer)(\.(firstPage|evenPages))?\.(html|htmlTemplate)$",
        r"^(Must be base64-encoded UTF-8 text|Must not be empty)$",
        "A band's HTML must decode to UTF-8 text: as page.html, UTF-8 inside base64 has no JSON Schema form.",
    ),
    Rule(
        r"(^|\.)pdf\.(header|footer)(\.(firstPage|evenPages))?\.htmlTemplate$",
        r"^(Template could not be rendered|Template has more than|Template is too large or too deeply nested"
        r"|Template runs more than|Rendered HTML is larger than)",
        "A band's Handlebars template must parse and render within the template limits: a grammar, not a pattern.",
    ),
    Rule(
        r"(^|\.)pdf\.(header|footer)\.height$",
        r"^(Must be at least 1px|Must be at most 200in|Must leave room on the page|Must be less than the page"
        r"|The header and footer together must be less than the page)",
        "A band's height with a unit compares its value in inches, and the bands must fit the page the format, "
        "width, height and landscape (or a CSS @page size) make: arithmetic across fields.",
    ),
    Rule(
        r"(^|\.)pdf\.margin\.(top|bottom|left|right)$",
        r"^Must leave room on the page: ",
        "Two margins (each with its own unit) together must be less than the paper the format, width, height and "
        "landscape make: arithmetic across fields (lib/plan/build-plan.ts, marginsFit).",
    ),
    Rule(
        r"(^|\.)pdf\.(sectionHeadings|header|footer)$",
        r"^(Not a valid CSS selector|The band could not be printed|The band did not lay out)",
        "What the page decides when it renders (lib/render, lib/finishing/steps/bands/bands.ts): the section selector must be "
        "CSS, and a band's document must load and lay out one page per body page.",
    ),
    Rule(
        r"^parts\.\d+\.pdf\.(header|footer)$",
        r"^The merge's pdf\.(header|footer) is laid over every page",
        "A merge's header or footer is laid over every page, so a part may not carry its own of the same kind "
        "(lib/plan/build-plan.ts): a rule between the top-level pdf and every part's, possibly from a stored template.",
        MERGES,
    ),
    Rule(
        r"^parts\.\d+\.page\.",
        MERGED_RULES,
        "A template part merges its overrides over a stored template, checked as a direct render's once merged "
        "(code merge.part): the stored half is not in the request.",
        MERGES,
    ),
    Rule(
        r"^items\.\d+\.",
        MERGED_RULES[:-2] + r"|Must be unique in the batch .*|No template of this account has this id|Unknown field|Must be an object)$",
        "A batch item is checked once `defaults` are merged under it (and a template item once merged over its "
        "stored template), as /v1/pdf, /v1/screenshot or /v1/template/{id} would check it: the rules between "
        "fields hold for the merge, which neither half shows alone (the merged item's kind, a PDF or a screenshot, "
        "decides whether pdf or screenshot is one of its fields); names are unique across items, and a "
        "templateId must name a template of the caller's account (a 400 naming the item, not a 404).",
        ("createBatch",),
    ),
    Rule(
        r"^(items(\.\d+)?|itemsUrl)$",
        r"^(Give exactly one of items and itemsUrl|Must be one JSON object on one line|Answered \d+|Could not be fetched"
        r"|Refused by the network rules|No complete answer|Must be at most|Must list at|Must be UTF-8 text|No file at this key)",
        "Exactly one of items and itemsUrl is a rule between two nullable fields (the document's oneOf says it, "
        "null counting as absent); itemsUrl is fetched (or read from the caller's uploads) when the batch is "
        "posted: what its host answers, line by line, is the host's, not the request's.",
        ("createBatch",),
    ),
    Rule(
        r"^output\.(zip|merge)$",
        r"^Takes at most \d+ items ",
        "A batch's archive or merged PDF is made by the consumer that closes it (lib/schemas/batch-requests.ts "
        "MAX_OUTPUT_ITEMS): a rule between output and the length of items.",
        ("createBatch",),
    ),
)


def _explained(operation_id, field, message):
    return any(
        (rule.operations is None or operation_id in rule.operations)
        and re.search(rule.field, field)
        and re.search(rule.message, message)
        for rule in BEYOND_JSON_SCHEMA
    )


@schemathesis.check
def refused_only_beyond_json_schema(ctx, response, case):
    """A schema-valid body answered 400 names only fields refused by a rule of BEYOND_JSON_SCHEMA."""
    meta = case.meta
    if meta is None or meta.generation.mode != GenerationMode.POSITIVE or response.status_code != 400:
        return None
    try:
        body = response.json()
    except ValueError:
        body = None
    fields = body.get("fields") if isinstance(body, dict) else None
    operation_id = case.operation.definition.raw.get("operationId")
    unexplained = {
        field: message
        for field, message in (fields or {}).items()
        if not _explained(operation_id, field, str(message))
    }
    if not fields or unexplained:
        raise AssertionError(
            "A body that fits the document was refused for a rule the document could state: "
            f"{unexplained or body!r}"
        )
    return None
