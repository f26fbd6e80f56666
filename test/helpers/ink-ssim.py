"""SSIM of the ink of two images, pair by pair: argv holds a.png b.png …;
each image is cropped to the box of its dark pixels (darker than mid-grey:
a drawn line of text, wherever it sits on its page) and both are blurred by
2 pixels before scikit-image's structural_similarity (greyscale, range
255), in the better of two alignments: padded with white to the larger size
(same origin and scale), or the second scaled to the first's size. Two
shapers or rasterisers place glyphs a little differently (sub-pixel
positions, advances rounded their own way: a few pixels of drift over a
long line, which scaling takes out), and unblurred SSIM punishes that as
much as a wrong shape; so compared, the same shaping scores about 0.98 and
a line whose letters are not joined or whose marks are out of place about
0.5 either way. Run by test/helpers/ink-ssim.ts in page-ssim.ts's pinned venv."""
import sys

import numpy as np
from skimage.color import rgb2gray
from skimage.filters import gaussian
from skimage.io import imread
from skimage.metrics import structural_similarity
from skimage.transform import resize

BLUR_PIXELS = 2


def ink(path):
    image = imread(path)
    if image.ndim == 3:
        image = rgb2gray(image[..., :3]) * 255
    image = image.astype(np.float64)
    rows, cols = np.where(image < 128)
    if len(rows) == 0:
        return image[:1, :1]
    return image[max(rows.min() - 4, 0) : rows.max() + 5, max(cols.min() - 4, 0) : cols.max() + 5]


def ssim(left, right):
    blur = lambda image: gaussian(image, BLUR_PIXELS, preserve_range=True)
    return structural_similarity(blur(left), blur(right), data_range=255)


paths = sys.argv[1:]
for a, b in zip(paths[0::2], paths[1::2]):
    left, right = ink(a), ink(b)
    height, width = max(left.shape[0], right.shape[0]), max(left.shape[1], right.shape[1])
    pad = lambda image: np.pad(image, ((0, height - image.shape[0]), (0, width - image.shape[1])), constant_values=255)
    scaled = resize(right, left.shape, anti_aliasing=True, preserve_range=True)
    print(max(ssim(pad(left), pad(right)), ssim(left, scaled)))
