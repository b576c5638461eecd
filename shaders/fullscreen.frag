#version 450 core
// The full-screen pass: shows the renderer's RGBA8 image. At resolution scale 1 the texture has the viewport's
// size and the sampler filters with GL_NEAREST, so every pixel is copied unchanged (the headless tests rely on
// this: the 3D part of a viewer frame equals `slabcast render`'s frame bit for bit). At other scales the
// sampler filters linearly.

layout(binding = 0) uniform sampler2D u_image;

in vec2 v_uv;
layout(location = 0) out vec4 o_color;

void main() {
  o_color = texture(u_image, v_uv);
}
