// kernels/postprocess_cpu.cpp — the CPU reference of the postprocess filters (the same texel functions
// as postprocess.cu, rows split over threads), plus what both launchers share: parameter validation
// and filter names.
#include "kernels/parallel.hpp"
#include "kernels/postprocess.hpp"

#include <stdexcept>
#include <string>

namespace kernels {
namespace {

std::string size_text(int width, int height) {
  return std::to_string(width) + "x" + std::to_string(height);
}

}  // namespace

const char* to_string(Filter filter) {
  for (const FilterName& entry : kFilterNames)
    if (entry.value == filter) return entry.name;
  return "unknown";
}

void validate_postprocess(const ImageSource& source, const ImageTarget& target,
                          const PostprocessParams& params, const Vec4* scratch) {
  if (source.width != target.width || source.height != target.height)
    throw std::invalid_argument("postprocess: ImageSource is " + size_text(source.width, source.height) +
                                " but ImageTarget is " + size_text(target.width, target.height) +
                                "; the filters write an image the size of their source");
  if (source.width < 0 || source.height < 0)
    throw std::invalid_argument("postprocess: image size " + size_text(source.width, source.height) +
                                " is negative");
  if (source.texture == 0 && source.pixels == nullptr)
    throw std::invalid_argument("postprocess: ImageSource has neither texture nor pixels; set one");
  if (target.surface == 0 && target.pixels == nullptr)
    throw std::invalid_argument("postprocess: ImageTarget has neither surface nor pixels; set one");
  if (params.blur_radius < 0 || params.blur_radius > kMaxBlurRadius)
    throw std::invalid_argument("PostprocessParams.blur_radius is " + std::to_string(params.blur_radius) +
                                "; use 0.." + std::to_string(kMaxBlurRadius));
  if (params.filter == Filter::Blur && scratch == nullptr)
    throw std::invalid_argument(
        "postprocess: the blur needs scratch memory of postprocess_scratch_bytes(width, height); scratch is "
        "null");
}

void postprocess_cpu(const ImageSource& source, const ImageTarget& target, const PostprocessParams& params,
                     Vec4* scratch) {
  validate_postprocess(source, target, params, scratch);
  if (source.texture != 0)
    throw std::invalid_argument(
        "postprocess_cpu: ImageSource.texture is a CUDA texture object, which host code cannot read; "
        "pass host pixels (linear_source) or use postprocess_cuda");
  if (target.surface != 0)
    throw std::invalid_argument(
        "postprocess_cpu: ImageTarget.surface is a CUDA surface object, which host code cannot write; "
        "pass host pixels (linear_target) or use postprocess_cuda");
  const int width = target.width;
  const int height = target.height;
  switch (params.filter) {
    case Filter::Sobel:
      if (static_cast<const void*>(source.pixels) == static_cast<const void*>(target.pixels))
        throw std::invalid_argument(
            "postprocess_cpu: Sobel cannot filter in place; give it a separate target");
      parallel_rows(height, [&](int begin, int end) {
        for (int y = begin; y < end; ++y)
          for (int x = 0; x < width; ++x) store(target, x, y, sobel_texel(source, x, y));
      });
      break;
    case Filter::Blur: {
      const BlurWeights weights = blur_weights(params);
      parallel_rows(height, [&](int begin, int end) {
        for (int y = begin; y < end; ++y)
          for (int x = 0; x < width; ++x)
            scratch[static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)] =
                blur_horizontal_texel(source, x, y, weights);
      });
      parallel_rows(height, [&](int begin, int end) {
        for (int y = begin; y < end; ++y)
          for (int x = 0; x < width; ++x)
            store(target, x, y, blur_vertical_texel(scratch, width, height, x, y, weights));
      });
      break;
    }
  }
}

}  // namespace kernels
