#!/usr/bin/env python3
"""A real JPEG of noise (three bands of Gaussian noise, quality 85) made with libvips, the library
`har serve` decodes photos with, through ctypes: photos for bench/load.py and the upload benches
that the server must decode like a camera's. 2000×1500 is about 1.5 MB; 5200×3900 about 10 MB.

Usage: bench/make-jpeg.py OUT.jpg WIDTH HEIGHT
"""
import ctypes
import sys

vips = ctypes.CDLL("libvips.so.42")
if vips.vips_init(b"make-jpeg") != 0:
    raise SystemExit("make-jpeg: libvips did not start")
path, width, height = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
bands = []
for _ in range(3):
    band = ctypes.c_void_p()
    if vips.vips_gaussnoise(ctypes.byref(band), width, height, b"sigma", ctypes.c_double(30.0),
                            b"mean", ctypes.c_double(128.0), None) != 0:
        raise SystemExit("make-jpeg: gaussnoise failed")
    bands.append(band)
joined, image = ctypes.c_void_p(), ctypes.c_void_p()
array = (ctypes.c_void_p * 3)(*[band.value for band in bands])
if vips.vips_bandjoin(array, ctypes.byref(joined), 3, None) != 0 or \
        vips.vips_cast_uchar(joined, ctypes.byref(image), None) != 0 or \
        vips.vips_jpegsave(image, path.encode(), b"Q", 85, None) != 0:
    raise SystemExit("make-jpeg: could not write " + path)
