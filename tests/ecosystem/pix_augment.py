"""A typical dm-pix program: flips, rot90, crops, rotations and affine warps, color
jitter (brightness, contrast, saturation, hue, gamma), gaussian blur, ssim / psnr,
eagerly and under jax.jit and jax.vmap; prints its numbers as JSON."""
import json

import numpy as np
import jax, jax.numpy as jnp
import dm_pix as pix

rng = np.random.RandomState(0)
img = jnp.asarray(rng.rand(16, 16, 3).astype(np.float32))
batch = jnp.asarray(rng.rand(4, 16, 16, 3).astype(np.float32))
key = jax.random.PRNGKey(0)
res = {}


def summary(x):
    """A few numbers that pin an image down: its sum, its mean per channel, and
    four pixels."""
    x = np.asarray(x, np.float64)
    return [float(x.sum())] + x.reshape(-1, x.shape[-1]).mean(0).tolist() + \
        x.ravel()[[0, 7, x.size // 2, x.size - 1]].tolist()


# geometry
res["flip_lr"] = summary(pix.flip_left_right(img))
res["flip_ud"] = summary(pix.flip_up_down(img))
res["rot90"] = summary(pix.rot90(img, k=3))
res["random_flip"] = summary(jax.vmap(pix.random_flip_left_right)(
    jax.random.split(key, 4), batch))
res["random_crop"] = summary(pix.random_crop(key, img, (10, 12, 3)))
res["center_crop"] = summary(pix.center_crop(img, 8, 10))
res["rotate"] = summary(jax.jit(lambda x: pix.rotate(x, 0.3, mode="constant",
                                                     cval=0.0))(img))
theta = jnp.array([[1.0, 0.2, 0.0], [-0.1, 0.9, 1.5], [0.0, 0.0, 1.0]])
res["affine"] = summary(pix.affine_transform(img, theta, order=1, mode="nearest"))
res["resize_nearest"] = summary(pix.resize_with_crop_or_pad(img, 20, 12))


# color jitter under jit and vmap, one key per image
@jax.jit
def jitter(k, x):
    k1, k2, k3, k4 = jax.random.split(k, 4)
    x = pix.random_brightness(k1, x, 0.2)
    x = pix.random_contrast(k2, x, 0.7, 1.3)
    x = pix.random_saturation(k3, x, 0.6, 1.4)
    x = pix.random_hue(k4, x, 0.1)
    return jnp.clip(x, 0.0, 1.0)


res["jitter"] = summary(jax.vmap(jitter)(jax.random.split(key, 4), batch))
res["adjust"] = summary(pix.adjust_gamma(pix.adjust_hue(pix.adjust_saturation(
    pix.adjust_contrast(pix.adjust_brightness(img, 0.1), 1.2), 0.8), 0.05), 1.5))
res["gray"] = summary(pix.rgb_to_grayscale(img, keep_dims=True))
res["hsv_roundtrip"] = summary(pix.hsv_to_rgb(pix.rgb_to_hsv(img)))

# filters and metrics
res["blur"] = summary(jax.jit(lambda x: pix.gaussian_blur(x, sigma=1.2, kernel_size=5))(img))
noisy = jnp.clip(batch + 0.05 * jnp.asarray(rng.randn(*batch.shape).astype(np.float32)),
                 0.0, 1.0)
res["psnr"] = np.asarray(pix.psnr(batch, noisy)).tolist()
res["ssim"] = np.asarray(jax.jit(pix.ssim)(batch, noisy)).tolist()
res["ssim_grad"] = summary(jax.grad(lambda x: pix.ssim(batch[0], x))(noisy[0]))
print(json.dumps(res))
