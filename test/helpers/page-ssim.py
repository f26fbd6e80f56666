"""SSIM of page images, pair by pair: argv holds a.png b.png a.png b.png …;
prints one SSIM per pair (scikit-image's structural_similarity on the
greyscale pages, data range 255). Run by test/helpers/page-ssim.ts in the
pinned venv it makes under .cache/scikit-image."""
import sys

import numpy as np
from skimage.color import rgb2gray
from skimage.io import imread
from skimage.metrics import structural_similarity


def grey(path):
    image = imread(path)
    if image.ndim == 3:
        image = rgb2gray(image[..., :3]) * 255
    return image.astype(np.float64)


paths = sys.argv[1:]
for a, b in zip(paths[0::2], paths[1::2]):
    left, right = grey(a), grey(b)
    height, width = min(left.shape[0], right.shape[0]), min(left.shape[1], right.shape[1])
    print(structural_similarity(left[:height, :width], right[:height, :width], data_range=255))
