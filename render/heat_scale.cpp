// The heat views' colour scale for legends (renderer.h): the shade stage's own functions (stages/shade.h), so a
// legend shows exactly the colours the image has.
#include "render/renderer.h"
#include "render/stages/shade.h"

namespace slabcast {

float heat_scale_position(uint64_t value, uint64_t max) { return heat_position(value, max); }

Color8 heat_scale_color(float position) {
  const Rgba8 c = heat(position);
  return Color8{c.r, c.g, c.b, c.a};
}

}  // namespace slabcast
