/**
 * The answers of the API as JSON Schema (2020-12), as decisions.md and
 * docs/api.md describe them. Answers are built in code rather than parsed, so
 * these are written here; the e2e suite checks live answers against them.
 */
import type { JsonSchema } from '@valibot/to-json-schema';
import { MAX_FONTS_PER_ACCOUNT } from '../fonts/user-fonts/font-limits.js';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const dateTime: JsonSchema = { type: 'string', format: 'date-time' };
const JOB_STATUS = ['PENDING', 'RUNNING', 'FAILED', 'COMPLETED'];
const SIGNED_URL_STATUS: JsonSchema = {
  type: 'string',
  enum: ['NOT_PROVIDED', 'UPLOADED', 'FAILED'],
  description: 'NOT_PROVIDED without storage; UPLOADED when the PUT to storage.preSignedUrl answered 2xx; FAILED otherwise (fileUrl still points at the temporary copy).',
};

/** Images stored beside the file (issue 34), in the sync answer, the job and the webhook. */
const BESIDE_FILE: Record<string, JsonSchema> = {
  fileUrls: {
    type: 'array',
    items: ref('PageFileUrl'),
    description:
      'Several page images (/v1/pdf/process with output PNG, JPEG or WEBP and more than one page): one entry per page, in page order, each a temporary file of its own; fileUrl is then their ZIP (page-001.png…), as the raw answer. Absent for one page (fileUrl is its image) and for other outputs.',
  },
  previewUrl: {
    type: ['string', 'null'],
    format: 'uri',
    description: "pdf.preview: the image of the PDF's first page, a temporary file like the PDF (1 hour; null once expired). Never sent to storage.preSignedUrl.",
  },
};

/** Characters the file draws with no glyph (issue 46): in the sync answer, the job and the webhook, only when there are any. */
const MISSING_GLYPHS: Record<string, JsonSchema> = { missingGlyphs: ref('MissingGlyphs') };
/** What an async job cost (issue 47), once it has ended; with fileSize, its bytes. */
const RUN_COST: Record<string, JsonSchema> = {
  pageCount: { type: 'integer', minimum: 0, description: 'Once a PDF job has ended: its pages, or for one that ran out of time in the finishing, the pages printed (absent for images, and where not known).' },
  renderMs: { type: 'integer', minimum: 0, description: 'Once the job has ended: milliseconds from taking the job to its file ready to store (the render and its finishing; absent when it never rendered). The bytes are fileSize.' },
};

const TEMPLATE_FIELDS: Record<string, JsonSchema> = {
  id: { type: 'string' },
  name: { type: 'string', maxLength: 200 },
  output: { type: 'string', enum: ['PDF', 'IMAGE'] },
  createdAt: dateTime,
  updatedAt: dateTime,
};

/** Where a job's or a batch's webhook stands. */
const WEBHOOK_STATE: JsonSchema = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['PENDING', 'RETRYING', 'DELIVERED', 'FAILED'] },
    attempts: { type: 'integer', minimum: 0 },
  },
  required: ['status', 'attempts'],
};

/** Response bodies by component name. */
export const RESPONSE_SCHEMAS: Record<string, JsonSchema> = {
  Error: {
    type: 'object',
    description: 'Every error but 400.',
    properties: {
      message: { type: 'string' },
      code: {
        type: 'string',
        description: 'Where the service tells errors of one status apart (signing: render.signer_not_granted, render.signer_unavailable, render.timestamp_unavailable).',
      },
    },
    required: ['message'],
  },
  ValidationError: {
    type: 'object',
    description: 'A 400: the request is malformed, has a wrong or unknown field, or the page could not be loaded (code render.navigation).',
    properties: {
      message: { type: 'string' },
      code: { type: 'string', examples: ['api.validation', 'render.navigation'] },
      fields: {
        type: 'object',
        description: 'Dotted field path (e.g. page.url) to what is wrong with it.',
        additionalProperties: { type: 'string' },
      },
    },
    required: ['message', 'code', 'fields'],
  },
  Template: {
    type: 'object',
    properties: { ...TEMPLATE_FIELDS, variables: ref('TemplateVariables') },
    required: [...Object.keys(TEMPLATE_FIELDS), 'variables'],
  },
  TemplateSummary: {
    type: 'object',
    description: 'A template as lists show it: without variables.',
    properties: TEMPLATE_FIELDS,
    required: Object.keys(TEMPLATE_FIELDS),
  },
  TemplateListPage: {
    type: 'object',
    description: '20 templates a page, newest first.',
    properties: {
      hasNextPage: { type: 'boolean' },
      hasPreviousPage: { type: 'boolean' },
      data: { type: 'array', items: ref('TemplateSummary'), maxItems: 20 },
    },
    required: ['hasNextPage', 'hasPreviousPage', 'data'],
  },
  Font: {
    type: 'object',
    description: "One of the account's own fonts (issue 46): pages of this account's renders name it in CSS by family, weight and style, with no @font-face.",
    properties: {
      id: { type: 'string', pattern: '^fnt_[0-9a-hjkmnp-tv-z]{26}$' },
      family: { type: 'string' },
      weight: { type: 'integer', minimum: 1, maximum: 1000, description: "OS/2 usWeightClass, as CSS's font-weight." },
      style: { type: 'string', enum: ['normal', 'italic'] },
      format: { type: 'string', enum: ['ttf', 'otf'], description: 'The format it is kept in (WOFF and WOFF2 are unpacked).' },
      uploadedAs: { type: 'string', enum: ['ttf', 'otf', 'woff', 'woff2'] },
      bytes: { type: 'integer' },
      glyphs: { type: 'integer' },
      sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
      createdAt: { type: 'string', format: 'date-time' },
    },
    required: ['id', 'family', 'weight', 'style', 'format', 'uploadedAs', 'bytes', 'glyphs', 'sha256', 'createdAt'],
  },
  FontList: {
    type: 'object',
    description: `Every font of the account, oldest first (at most ${MAX_FONTS_PER_ACCOUNT}).`,
    properties: { data: { type: 'array', items: ref('Font'), maxItems: MAX_FONTS_PER_ACCOUNT } },
    required: ['data'],
  },
  SyncResult: {
    type: 'object',
    properties: {
      id: { type: 'string' },
      status: { type: 'string', enum: ['COMPLETED'] },
      fileUrl: { type: 'string', format: 'uri', description: 'Temporary download URL, valid for 1 hour.' },
      ...BESIDE_FILE,
      signedUrlStatus: SIGNED_URL_STATUS,
      ...MISSING_GLYPHS,
    },
    required: ['id', 'status', 'fileUrl', 'signedUrlStatus'],
  },
  MissingGlyphs: {
    type: 'object',
    description:
      'Characters the file draws with no glyph, blank or as a box (pdf.missingGlyphs, screenshot.missingGlyphs "report"); absent when there are none. Raw answers say the same in X-Missing-Glyphs.',
    properties: {
      count: { type: 'integer', minimum: 0, description: 'Characters drawn with no glyph, every occurrence counted.' },
      codePoints: { type: 'array', items: { type: 'string', pattern: '^U\\+[0-9A-F]{4,6}$' }, maxItems: 64, description: 'Which, distinct, in order of first appearance (at most 64).' },
      firstPage: { type: 'integer', minimum: 1, description: 'PDFs: the first page that draws one.' },
      partial: { type: 'boolean', enum: [true], description: 'The check stopped before the end of the document (its time or size bound): there may be more.' },
    },
    required: ['count', 'codePoints'],
  },
  PageFileUrl: {
    type: 'object',
    description: "One page's image of several (fileUrls).",
    properties: {
      page: { type: 'integer', minimum: 1, description: 'The page of the finished PDF (1-based).' },
      width: { type: 'integer', minimum: 1, description: 'Pixels.' },
      height: { type: 'integer', minimum: 1, description: 'Pixels.' },
      contentType: { type: 'string', enum: ['image/png', 'image/jpeg', 'image/webp'] },
      fileSize: { type: 'integer', minimum: 0, description: 'Bytes.' },
      fileUrl: { type: ['string', 'null'], format: 'uri', description: 'Temporary download URL, valid for the rest of the hour; null once expired.' },
    },
    required: ['page', 'width', 'height', 'contentType', 'fileSize', 'fileUrl'],
  },
  AsyncJob: {
    type: 'object',
    properties: { id: { type: 'string' }, status: { type: 'string', enum: ['PENDING'] } },
    required: ['id', 'status'],
  },
  AcceptedBatch: {
    type: 'object',
    description: 'A batch accepted: every item checked, one unit per item spent, the items queued.',
    properties: { id: { type: 'string' }, status: { type: 'string', enum: ['PENDING'] }, total: { type: 'integer', minimum: 1 } },
    required: ['id', 'status', 'total'],
  },
  Batch: {
    type: 'object',
    description: 'A batch of the caller (GET /v1/batches/{id}; DELETE answers it as it stands after the cancel).',
    properties: {
      id: { type: 'string' },
      status: {
        type: 'string',
        enum: ['PENDING', 'RUNNING', 'COMPLETED', 'COMPLETED_WITH_ERRORS', 'FAILED', 'CANCELLED'],
        description: 'COMPLETED_WITH_ERRORS: some items failed (their reasons in the manifest); FAILED: every item failed; CANCELLED: DELETE asked (at once, before its last items end).',
      },
      total: { type: 'integer', minimum: 1 },
      counts: {
        type: 'object',
        properties: { done: { type: 'integer', minimum: 0 }, failed: { type: 'integer', minimum: 0 }, pending: { type: 'integer', minimum: 0 } },
        required: ['done', 'failed', 'pending'],
      },
      createdAt: dateTime,
      updatedAt: dateTime,
      completedAt: dateTime,
      manifestUrl: {
        type: ['string', 'null'],
        format: 'uri',
        description:
          'Once the batch has ended: the results manifest, a JSON file {id, status, total, done, failed, createdAt, completedAt, zip?, merged?, items: [{index, name, status, metadata, fileUrl?, contentType?, fileSize?, missingGlyphs?, pageCount?, renderMs?, error?}]} valid 1 hour from the end (missingGlyphs: the item\'s MissingGlyphs report, when its file draws characters no font has; pageCount and renderMs: what it cost, as on a job); null once expired. zip and merged are {fileUrl, fileSize, leftOut?} or {error} when output asked for them: leftOut lists the items whose files had expired, [{index, name, error}], made without; a merged PDF past 20,000 pages or 512 MB is {error: {code: batch.merge_too_large}}.',
      },
      zipUrl: {
        type: ['string', 'null'],
        format: 'uri',
        description:
          'With output.zip, once the batch has ended: one ZIP archive of every completed item\'s file, named by the item\'s name (its index when it had none) and its extension; null when no item completed, it could not be made (the manifest says why) or it expired.',
      },
      mergedUrl: {
        type: ['string', 'null'],
        format: 'uri',
        description:
          'With output.merge, once the batch has ended: one PDF of every completed PDF item in order, one outline entry per item titled by its name; null when none completed, it could not be made (the manifest says why) or it expired.',
      },
      signedUrlStatus: {
        type: 'string',
        enum: ['UPLOADED', 'FAILED'],
        description:
          "With storage, once the batch has ended: how the PUT of its one file (the archive with output.zip, else the merged PDF with output.merge, else the manifest) to storage.preSignedUrl went; the temporary copies stay either way.",
      },
      webhook: WEBHOOK_STATE,
    },
    required: ['id', 'status', 'total', 'counts', 'createdAt', 'updatedAt'],
  },
  JobError: {
    type: 'object',
    properties: {
      message: { type: 'string' },
      code: { type: 'string' },
      fields: { type: 'object', additionalProperties: { type: 'string' } },
    },
    required: ['message', 'code'],
  },
  Job: {
    type: 'object',
    description: 'An async job of the caller (GET /v1/jobs/{id}, an addition to the vendor API).',
    properties: {
      id: { type: 'string' },
      status: { type: 'string', enum: JOB_STATUS },
      createdAt: dateTime,
      updatedAt: dateTime,
      fileUrl: { type: 'string', format: 'uri', description: 'While the file lives (1 hour).' },
      ...BESIDE_FILE,
      signedUrlStatus: { ...SIGNED_URL_STATUS, description: 'Once the job has ended.' },
      ...MISSING_GLYPHS,
      error: ref('JobError'),
      webhook: WEBHOOK_STATE,
      ...RUN_COST,
    },
    required: ['id', 'status', 'createdAt', 'updatedAt', 'webhook'],
  },
  Usage: {
    type: 'object',
    description: "The token's plan, this month's quota and its rate (an addition).",
    properties: {
      plan: { type: 'string' },
      quota: {
        type: 'object',
        properties: {
          limit: { type: ['integer', 'null'], description: 'Renders a month; null is unlimited.' },
          used: { type: 'integer', minimum: 0 },
          remaining: { type: ['integer', 'null'] },
          period: {
            type: 'object',
            properties: { start: dateTime, end: dateTime },
            required: ['start', 'end'],
          },
        },
        required: ['limit', 'used', 'remaining', 'period'],
      },
      rate: {
        type: 'object',
        properties: { perSecond: { type: 'number', exclusiveMinimum: 0 } },
        required: ['perSecond'],
      },
    },
    required: ['plan', 'quota', 'rate'],
  },
  Devices: {
    type: 'object',
    description: 'Every screenshot device preset (an addition).',
    properties: {
      data: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            name: { type: 'string' },
            viewport: {
              type: 'object',
              properties: {
                width: { type: 'integer' },
                height: { type: 'integer' },
                deviceScaleFactor: { type: 'number' },
                isMobile: { type: 'boolean' },
                hasTouch: { type: 'boolean' },
                isLandscape: { type: 'boolean' },
              },
              required: ['width', 'height', 'deviceScaleFactor', 'isMobile', 'hasTouch', 'isLandscape'],
            },
          },
          required: ['name', 'viewport'],
        },
      },
    },
    required: ['data'],
  },
  PdfFacts: {
    type: 'object',
    description:
      'The facts of an existing PDF (POST /v1/pdf/process with output JSON), read from the file as given (decrypted with password). ' +
      'Sizes in points (the crop box, as pdfinfo shows it), rotation in degrees clockwise.',
    properties: {
      pdfVersion: { type: 'string', examples: ['1.7'], description: "The header's version, or the catalog's /Version when later." },
      pageCount: { type: 'integer', minimum: 1 },
      pages: {
        type: 'array',
        items: {
          type: 'object',
          properties: { number: { type: 'integer', minimum: 1 }, width: { type: 'number' }, height: { type: 'number' }, rotation: { type: 'integer', enum: [0, 90, 180, 270] } },
          required: ['number', 'width', 'height', 'rotation'],
        },
      },
      metadata: {
        type: 'object',
        properties: {
          info: { type: 'object', additionalProperties: { type: 'string' }, description: 'The Info dictionary (Title, Author, Subject, Keywords, Creator, Producer, CreationDate, ModDate…) as text.' },
          xmp: { type: ['string', 'null'], description: 'The XMP packet (at most 4 MB), or null.' },
        },
        required: ['info', 'xmp'],
      },
      conformance: {
        type: 'object',
        description: 'What the XMP claims (pdfaid, pdfuaid): a claim, not a validation.',
        properties: {
          pdfa: { type: ['object', 'null'], properties: { part: { type: 'integer' }, conformance: { type: 'string' } }, required: ['part', 'conformance'] },
          pdfua: { type: ['object', 'null'], properties: { part: { type: 'integer' } }, required: ['part'] },
        },
        required: ['pdfa', 'pdfua'],
      },
      encryption: {
        type: ['object', 'null'],
        description: 'null when the file is not encrypted.',
        properties: {
          filter: { type: 'string', examples: ['Standard'] },
          version: { type: 'integer', description: '/V: 1–2 RC4, 4 AES-128 or RC4, 5 AES-256.' },
          revision: { type: 'integer' },
          keyBits: { type: 'integer' },
          metadataEncrypted: { type: 'boolean' },
          permissions: {
            type: 'object',
            description: 'The permission bits in the words of pdf.protection.permissions.',
            properties: {
              print: { type: 'string', enum: ['none', 'lowResolution', 'highResolution'] },
              modify: { type: 'boolean' },
              copy: { type: 'boolean' },
              annotate: { type: 'boolean' },
              fillForms: { type: 'boolean' },
              accessibility: { type: 'boolean' },
              assemble: { type: 'boolean' },
            },
            required: ['print', 'modify', 'copy', 'annotate', 'fillForms', 'accessibility', 'assemble'],
          },
        },
        required: ['filter', 'version', 'revision', 'keyBits', 'metadataEncrypted', 'permissions'],
      },
      attachments: {
        type: 'array',
        description: "Embedded files: the document's (page null), then those of file attachment annotations, as pdfdetach -list orders them.",
        items: {
          type: 'object',
          properties: {
            name: { type: 'string' },
            size: { type: ['integer', 'null'], description: 'As the file declares it (/Params /Size), or null.' },
            mimeType: { type: ['string', 'null'] },
            description: { type: ['string', 'null'] },
            relationship: { type: ['string', 'null'], description: '/AFRelationship (Source, Data, Alternative, Supplement, Unspecified).' },
            page: { type: ['integer', 'null'] },
          },
          required: ['name', 'size', 'mimeType', 'description', 'relationship', 'page'],
        },
      },
      outline: { type: 'array', description: "The outline's titles as a tree (a looping outline read as qpdf reads it).", items: ref('OutlineEntry') },
      form: {
        type: 'object',
        properties: {
          fields: {
            type: 'array',
            description: "The AcroForm's fields, by fully qualified name.",
            items: {
              type: 'object',
              properties: {
                name: { type: 'string' },
                type: { type: 'string', enum: ['text', 'checkbox', 'radio', 'dropdown', 'list', 'button', 'signature'] },
                value: {
                  description: 'text: string or null; checkbox: boolean; radio: the chosen option or null; dropdown and list: the chosen options; button and signature: null.',
                  oneOf: [{ type: 'string' }, { type: 'boolean' }, { type: 'array', items: { type: 'string' } }, { type: 'null' }],
                },
                options: { type: 'array', items: { type: 'string' }, description: 'radio, dropdown and list: what the field can take.' },
                required: { type: 'boolean' },
                readOnly: { type: 'boolean' },
              },
              required: ['name', 'type', 'value', 'required', 'readOnly'],
            },
          },
        },
        required: ['fields'],
      },
    },
    required: ['pdfVersion', 'pageCount', 'pages', 'metadata', 'conformance', 'encryption', 'attachments', 'outline', 'form'],
  },
  OutlineEntry: {
    type: 'object',
    properties: { title: { type: 'string' }, children: { type: 'array', items: ref('OutlineEntry') } },
    required: ['title', 'children'],
  },
  WebhookEvent: {
    type: 'object',
    description:
      'Body of the webhook call when an async job ends. Signed twice over the same raw body: Standard Webhooks ' +
      '(webhook-id, webhook-timestamp, webhook-signature) and x-doczilla-signature (hex HMAC-SHA256 of the body, ' +
      'keyed by the signing secret string as printed, whsec_…).',
    properties: {
      id: { type: 'string' },
      status: { type: 'string', enum: ['COMPLETED', 'FAILED'] },
      output: { type: 'string', enum: ['PDF', 'IMAGE', 'JSON'], description: 'JSON: the facts of a processed PDF (POST /v1/pdf/process/async with output JSON), as PdfFacts.' },
      contentType: { type: ['string', 'null'] },
      fileSize: { type: ['integer', 'null'] },
      fileUrl: { type: ['string', 'null'], description: 'receiveType URL: download URL valid for 1 hour; null when the job failed.' },
      fileBase64: { type: ['string', 'null'], description: 'receiveType base64: the file; null when the job failed.' },
      ...BESIDE_FILE,
      signedUrlStatus: SIGNED_URL_STATUS,
      ...MISSING_GLYPHS,
      metadata: { type: 'object', additionalProperties: { type: 'string' } },
      error: ref('JobError'),
      createdAt: dateTime,
      completedAt: { type: ['string', 'null'], format: 'date-time' },
      ...RUN_COST,
    },
    required: ['id', 'status', 'output', 'contentType', 'fileSize', 'signedUrlStatus', 'metadata', 'createdAt', 'completedAt'],
  },
};
