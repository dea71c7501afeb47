#!/usr/bin/python3
"""Reader fixtures written by numpy itself: .npz stored and deflated, big-endian, complex, a
version-2 header, Fortran order, float16, and bfloat16 bits as uint16."""
import sys

import numpy as np

out = sys.argv[1]
x = np.arange(12, dtype=np.float32).reshape(3, 4) / 7
np.savez(out + "/stored.npz", y=x, idx=np.arange(5, dtype=np.int64))
np.savez_compressed(out + "/deflated.npz", y=x, idx=np.arange(5, dtype=np.int64))
np.save(out + "/big.npy", x.astype(">f4"))
np.save(out + "/native.npy", x)
np.save(out + "/complex.npy", (x + 1j * x).astype(np.complex64))
np.lib.format.write_array(open(out + "/v2.npy", "wb"), x, version=(2, 0))
np.save(out + "/fortran.npy", np.asfortranarray(x))
# Fortran order as LAPACK-backed and transposed outputs have it, beside their C-order twins.
x3 = (np.arange(2 * 3 * 5, dtype=np.float64).reshape(2, 3, 5) - 7) / 3
np.save(out + "/f3_c.npy", x3)
np.save(out + "/f3_f.npy", np.asfortranarray(x3))
np.save(out + "/f3_f_big.npy", np.asfortranarray(x3.astype(">f8")))
np.save(out + "/f3_c_complex.npy", (x3 + 2j * x3).astype(np.complex64))
np.save(out + "/f3_f_complex.npy", np.asfortranarray((x3 + 2j * x3).astype(np.complex64)))
np.savez(out + "/f_stored.npz", y=np.asfortranarray(x3))
np.savez_compressed(out + "/f_deflated.npz", y=np.asfortranarray(x3))
np.save(out + "/half.npy", x.astype(np.float16))
bits = (x.view(np.uint32) >> 16).astype(np.uint16)
np.save(out + "/bf16.npy", bits)
# A large deflated member so inflation crosses several buffer refills.
big = np.random.default_rng(0).standard_normal(3_000_000).astype(np.float32)
np.savez_compressed(out + "/large.npz", big=big)
np.save(out + "/large.npy", big)
