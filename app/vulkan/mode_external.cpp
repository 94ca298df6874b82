// app/vulkan/mode_external.cpp — the Vulkan `external` mode: the renderer allocates the scene's
// resources exportable, CUDA imports them once (CudaLink), and each frame is ordered by semaphores
// alone (app/vulkan/semaphore_mode.hpp). Timeline semaphores by default (one value per step); binary
// semaphores as the switch (--semaphores binary).
#include "app/vulkan/cuda_link.hpp"
#include "app/vulkan/modes.hpp"
#include "app/vulkan/semaphore_mode.hpp"

#include <memory>

namespace lab::vulkan {

namespace {

// CudaLink as SemaphoreOrderedMode makes its links.
class ExternalLink : public CudaLink {
 public:
  ExternalLink(Renderer& renderer, const CudaContext&, interop::SemaphoreKind kind)
      : CudaLink(renderer, kind) {}
};

}  // namespace

std::unique_ptr<Mode> create_external_mode(const CudaContext& cuda, interop::SemaphoreKind kind) {
  return std::make_unique<SemaphoreOrderedMode<ExternalLink>>(ModeId::External, cuda, kind);
}

}  // namespace lab::vulkan
