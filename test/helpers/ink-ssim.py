"""SSIM of the ink of two images, pair by pair: argv holds a.png b.png …;
each image is cropped to the box of its dark pixels (a drawn line of text,
wherever it sits on its page) and both are padded with white to the larger
size before scikit-image's structural_similarity (greyscale, range 255).
Run by test/helpers/ink-ssim.ts in page-ssim.ts's pinned venv."""
import sys

import numpy as np
from skimage.color import rgb2gray
from skimage.io import imread
from skimage.metrics import structural_similarity


def ink(path):
    image = imread(path)
    if image.ndim == 3:
        image = rgb2gray(image[..., :3]) * 255
    image = image.astype(np.float64)
    rows, cols = np.where(image < 160)
    if len(rows) == 0:
        return image[:1, :1]
    return image[rows.min() - 2 if rows.min() >= 2 else 0 : rows.max() + 3, cols.min() - 2 if cols.min() >= 2 else 0 : cols.max() + 3]


paths = sys.argv[1:]
for a, b in zip(paths[0::2], paths[1::2]):
    left, right = ink(a), ink(b)
    height, width = max(left.shape[0], right.shape[0]), max(left.shape[1], right.shape[1])
    pad = lambda image: np.pad(image, ((0, height - image.shape[0]), (0, width - image.shape[1])), constant_values=255)
    print(structural_similarity(pad(left), pad(right), data_range=255))
