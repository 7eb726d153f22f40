"""kornia.py - kornia (differentiable computer vision on PyTorch), on the GPU.

  kornia   preprocess: color.bgr_to_rgb, then geometry.transform.resize
           (nearest, or bilinear with align_corners=False) or, for letterbox,
           geometry.transform.warp_affine by the letterbox map (bilinear,
           padding 'fill' with 114, which blends outside neighbours as 114,
           as the op) rounded to integers; then /255 and enhance.normalize
kornia is imported in setup: missing, an UNSUPPORTED row that says so.

  kbench run preprocess --peers   (every file under peers/; docs/python.md)
"""
from _common import letterbox_d2i, library, mean_std, peer, timed, torch_lib, version


def preprocess(image, n, in_h, in_w, out_h, out_w, interp, dtype, norm, **_):
    kornia = library("kornia", "pip install kornia")
    torch = torch_lib()
    out_dtype = {"f32": torch.float32, "f16": torch.float16}[dtype]
    mean, std = (torch.tensor(v, device="cuda") for v in mean_std(norm))
    if interp == "letterbox":
        d2i = letterbox_d2i(in_w, in_h, out_w, out_h)
        s = 1 / float(d2i[0, 0])  # source -> network: x' = s x + tx (kernels/preprocess.h)
        i2d = torch.tensor([[s, 0, -d2i[0, 2] * s], [0, s, -d2i[1, 2] * s]], device="cuda")
        i2d = i2d.expand(n, 2, 3)
        fill = torch.full((3,), 114.0, device="cuda")
    warp, resize = kornia.geometry.transform.warp_affine, kornia.geometry.transform.resize

    def run():
        x = kornia.color.bgr_to_rgb(image.permute(0, 3, 1, 2).float())
        if interp == "letterbox":
            x = warp(x, i2d, (out_h, out_w), mode="bilinear", padding_mode="fill",
                     align_corners=True, fill_value=fill)
            x = torch.floor(x + 0.5)
        else:
            x = resize(x, (out_h, out_w), interpolation=interp, antialias=False,
                       align_corners=False if interp == "bilinear" else None)
        return kornia.enhance.normalize(x / 255.0, mean, std).to(out_dtype)

    how = ("warp_affine(bilinear, fill 114) + round" if interp == "letterbox" else
           "resize(%s)" % interp)
    return timed(run, lambda y: {"out": y}), "bgr_to_rgb + %s + normalize" % how


KBENCH = {
    "preprocess/kornia": peer(preprocess, "kornia resize / warp_affine + normalize",
                              version=version("kornia", "torch")),
}
