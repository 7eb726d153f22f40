"""opencv.py - OpenCV on the HOST (CPU): the preprocessing people run before
a GPU network, timed by the wall clock with the input already in host memory.

  opencv_cpu   preprocess: per image cv2.resize (on float32, so that the
               blend is not rounded to u8: the same work as the op) or
               cv2.warpAffine (u8, border 114, as YOLOv5's letterbox), then
               cvtColor, normalise, transpose
OpenCV missing: an UNSUPPORTED row that says so.

  kbench run preprocess --peers   (every file under peers/; docs/python.md)
"""
from _common import letterbox_d2i, library, mean_std, peer


def opencv_version():
    import cv2
    return "OpenCV %s, %d threads" % (cv2.__version__, cv2.getNumThreads())


def preprocess(image, n, in_h, in_w, out_h, out_w, interp, dtype, norm, **_):
    import numpy as np
    cv2 = library("cv2", "pip install opencv-python-headless")
    np_dtype = np.float16 if dtype == "f16" else np.float32
    mean, std = mean_std(norm)
    mean_a = np.array(mean, dtype=np.float32)
    inv_std = np.float32(1) / np.array(std, dtype=np.float32)
    d2i = letterbox_d2i(in_w, in_h, out_w, out_h)

    def one(img):
        if interp == "letterbox":
            y = cv2.warpAffine(img, d2i, (out_w, out_h),
                               flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=(114, 114, 114))
            y = y.astype(np.float32)
        else:
            flag = cv2.INTER_NEAREST if interp == "nearest" else cv2.INTER_LINEAR
            y = cv2.resize(img.astype(np.float32), (out_w, out_h), interpolation=flag)
        y = cv2.cvtColor(y, cv2.COLOR_BGR2RGB)
        y = (y / np.float32(255) - mean_a) * inv_std
        return y.transpose(2, 0, 1).astype(np_dtype)

    def run():
        return np.stack([one(image[b]) for b in range(n)])

    how = "warpAffine(u8, border 114)" if interp == "letterbox" else "resize(float32)"
    return (lambda: (run(), lambda y: {"out": np.ascontiguousarray(y)}),
            "CPU, not the GPU: per image %s + cvtColor + normalise + transpose; wall clock" % how)


KBENCH = {
    "preprocess/opencv_cpu": peer(preprocess, "OpenCV on the CPU: resize / warpAffine + cvtColor"
                                  " + normalise", where="host", version=opencv_version),
}
