#include "render/backends.h"
#include <stdexcept>
namespace slabcast {
std::unique_ptr<Renderer> make_cuda_renderer(const RendererOptions&) { throw std::runtime_error("wip"); }
}
