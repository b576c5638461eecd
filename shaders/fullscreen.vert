#version 450 core
// The full-screen pass of the viewer's display path: one triangle that covers the viewport, no vertex buffer
// (the vertices come from gl_VertexID), so the pass needs only an empty vertex array object.
//
// The renderer writes its image with row 0 at the top (image order, as every slabcast image), and that image
// reaches the texture unchanged, so texture row 0 (t = 0) is the top of the picture: t runs downwards.

out vec2 v_uv;  // texture coordinate: (0, 0) = top-left texel corner, (1, 1) = bottom-right

void main() {
  // gl_VertexID 0, 1, 2 -> clip (-1, -1), (3, -1), (-1, 3): the triangle's inside covers [-1, 1]^2.
  vec2 clip = vec2(float((gl_VertexID & 1) << 2) - 1.0, float((gl_VertexID & 2) << 1) - 1.0);
  v_uv = vec2(0.5 * (clip.x + 1.0), 0.5 * (1.0 - clip.y));
  gl_Position = vec4(clip, 0.0, 1.0);
}
