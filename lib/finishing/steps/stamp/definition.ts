/**
 * The `stamp` step (issue 23): `pdf.watermark`, text (real, selectable text
 * in any script) or a PNG/JPEG image, stamped over or under the selected pages.
 */
import * as v from 'valibot';
import { decodeStampImage, MAX_STAMP_IMAGE_EDGE, MAX_STAMP_IMAGE_PIXELS, StampImageSchema } from '../../../input/stamp-image.js';
import { familyProblem, isCssKeyword } from '../../../fonts/family-names.js';
import { OptionError } from '../../../pdf/errors.js';
import { closedObject } from '../../../validation/closed-object.js';
import { documented, numberBetween, oneOf } from '../../../validation/field-builders.js';
import { PageRangesSchema } from '../../../validation/page-ranges.js';
import type { StampPlan } from '../../pipeline/finishing-plan.js';
import { defineStep } from '../../pipeline/step-definition.js';

/** Longest watermark text: a stamp, not a document. */
export const MAX_WATERMARK_TEXT = 500;

/** The nine anchors a watermark is placed at. */
export const WATERMARK_POSITIONS = ['center', 'top', 'bottom', 'left', 'right', 'topLeft', 'topRight', 'bottomLeft', 'bottomRight'] as const;

/** What a watermark's settings left out mean. */
export const WATERMARK_DEFAULTS = {
  opacity: 0.5,
  rotation: 0,
  fontSize: 48,
  color: '#808080',
  position: 'center',
  layer: 'over',
} as const;

/** A font family a text is drawn in, as CSS names it (no quotes or syntax: it is written into a page's style). */
const FontFamilySchema = v.pipe(
  v.string('Must be a string'),
  v.trim(),
  v.minLength(1, 'Must not be empty'),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const problem = familyProblem(dataset.value) ?? (isCssKeyword(dataset.value) ? `"${dataset.value}" is a keyword of CSS, not a family` : undefined);
    if (problem) addIssue({ message: problem });
  }),
);

/** `pdf.watermark`: one of text or image; fontSize and color only with text. */
export const WatermarkSchema = v.pipe(
  closedObject({
    text: documented(v.nullish(v.pipe(v.string('Must be a string'), v.minLength(1, 'Must not be empty'), v.maxLength(MAX_WATERMARK_TEXT, `Must be at most ${MAX_WATERMARK_TEXT} characters`))), {
      description: 'Text in any script (CJK and emoji included); stays selectable and searchable. One of text or image.',
    }),
    image: documented(v.nullish(StampImageSchema), {
      description:
        `Base64 PNG or JPEG, at most 1 MB, declaring at most ${MAX_STAMP_IMAGE_EDGE} pixels a side and ${MAX_STAMP_IMAGE_PIXELS} in all ` +
        '(read from its header before it is decoded; a PNG\'s data must inflate to what its header declares, not animated); drawn at 96 dpi, shrunk to fit the page. One of text or image.',
    }),
    opacity: documented(v.nullish(numberBetween(0, 1)), { default: WATERMARK_DEFAULTS.opacity }),
    rotation: documented(v.nullish(numberBetween(-360, 360)), { default: WATERMARK_DEFAULTS.rotation, description: 'Degrees, counter-clockwise.' }),
    fontSize: documented(v.nullish(numberBetween(1, 500)), { default: WATERMARK_DEFAULTS.fontSize, description: 'Points; text only.' }),
    color: documented(v.nullish(v.pipe(v.string('Must be a string'), v.regex(/^#(?:[0-9a-fA-F]{3}){1,2}$/, 'Must be a hex colour such as "#c00" or "#cc0000"'))), {
      default: WATERMARK_DEFAULTS.color,
      description: 'Text only.',
    }),
    fontFamily: documented(v.nullish(FontFamilySchema), {
      description:
        'The family the text is drawn in: one of the account\'s fonts (POST /v1/fonts), a family of the rendering layer ("Noto Serif") or a generic ' +
        'family (serif, monospace); the layer\'s sans-serif draws the characters it lacks. Default sans-serif. Text only.',
    }),
    position: documented(v.nullish(oneOf(WATERMARK_POSITIONS)), { default: WATERMARK_DEFAULTS.position }),
    pages: documented(v.nullish(PageRangesSchema), { description: 'Pages to stamp, in pageRanges syntax; default all. Applies after a merge, so it counts the merged pages.' }),
    layer: documented(v.nullish(oneOf(['over', 'under'])), { default: WATERMARK_DEFAULTS.layer }),
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const input = dataset.value;
    const at = (key: string): [v.IssuePathItem] => [{ type: 'object', origin: 'value', input, key, value: undefined }];
    const hasText = input.text != null;
    const hasImage = input.image != null;
    if (hasText === hasImage) {
      const message = hasText ? 'Only one of text or image may be given' : 'One of text or image is required';
      addIssue({ message, path: at('text') });
      addIssue({ message, path: at('image') });
    }
    if (hasImage && input.fontSize != null) addIssue({ message: 'Only used with text', path: at('fontSize') });
    if (hasImage && input.color != null) addIssue({ message: 'Only used with text', path: at('color') });
    if (hasImage && input.fontFamily != null) addIssue({ message: 'Only used with text', path: at('fontFamily') });
  }),
);

export type WatermarkOutput = v.InferOutput<typeof WatermarkSchema>;

/** The watermark with its defaults applied and its image decoded (the schema has checked it). */
export function stampPlan(watermark: WatermarkOutput): StampPlan {
  let mark: StampPlan['mark'];
  if (watermark.image != null) {
    const decoded = decodeStampImage(watermark.image);
    if ('problem' in decoded) throw new OptionError({ 'watermark.image': decoded.problem });
    mark = { image: decoded };
  } else {
    mark = {
      text: watermark.text ?? '',
      fontSize: watermark.fontSize ?? WATERMARK_DEFAULTS.fontSize,
      color: watermark.color ?? WATERMARK_DEFAULTS.color,
      ...(watermark.fontFamily != null ? { fontFamily: watermark.fontFamily } : {}),
    };
  }
  return {
    mark,
    opacity: watermark.opacity ?? WATERMARK_DEFAULTS.opacity,
    rotation: watermark.rotation ?? WATERMARK_DEFAULTS.rotation,
    position: watermark.position ?? WATERMARK_DEFAULTS.position,
    layer: watermark.layer ?? WATERMARK_DEFAULTS.layer,
    pages: watermark.pages ?? '',
  };
}

export const stampDefinition = defineStep({
  name: 'stamp',
  options: {
    entries: {
      watermark: documented(v.nullish(WatermarkSchema), { description: 'Stamps text or an image over or under the pages.' }),
    },
    plan: ({ watermark }) => (watermark != null ? stampPlan(watermark) : undefined),
  },
  build: async (plan: StampPlan, context) => (await import('./watermark.js')).stampStep(plan, context.drawText),
});
