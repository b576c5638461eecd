#version 450 core
// The hardware-raster reference (app/gl/gl_raster.h), fragment stage: render/stages/shade.h's colours and the
// triangle ID.
//
// ID: gl_PrimitiveID of one glDrawElements(GL_TRIANGLES) over the mesh's index buffer, so it is the triangle's
// index in the mesh, as the ray caster's ID buffer has it. Equal depths keep the earlier triangle (the depth
// test is GL_GREATER and GL keeps primitive order), so the lower ID wins, as in the ray caster.
//
// Normals: the ray caster's default shading uses smooth vertex normals, which it recomputes every frame from the
// deformed mesh. This pass has only the vertex stage, so it uses the face normal instead, from screen-space
// derivatives of the interpolated view-space position (helper invocations at a triangle's edge evaluate the same
// triangle's plane, so this is the face's normal up to rounding). "phong" therefore looks like "flat" here; the
// colour is a visual reference, the ID buffer is the cross-check.

layout(location = 12) uniform int u_shading;      // renderer.h's Shading: 0 phong, 1 flat, 2 depth, 3 normals,
                                                  // 4 triangle ID; the ray caster's debug views -> phong
layout(location = 13) uniform vec2 u_depth_range;  // view depths shown as near / far in the depth view
// The light (renderer.h's Light): 0 headlight, 1 sun (u_sun_view: towards it, view space). With u_shadow_map_on, a
// classic shadow map of the sun (no filtering): the fragment is in shadow when the map holds a depth nearer the sun
// than its own by more than u_shadow_bias. The map's projection: the light's camera (eye, right, up, back), its
// NDC scale and its reversed depth (far, 1 / (far - near)), as raster.vert's orthographic pass.
layout(location = 15) uniform int u_light_kind;
layout(location = 16) uniform vec3 u_sun_view;
layout(location = 17) uniform int u_shadow_map_on;
layout(location = 18) uniform vec3 u_light_eye;
layout(location = 19) uniform vec3 u_light_right;
layout(location = 20) uniform vec3 u_light_up;
layout(location = 21) uniform vec3 u_light_back;
layout(location = 22) uniform vec2 u_light_scale;
layout(location = 23) uniform vec2 u_light_depth;
layout(location = 24) uniform float u_shadow_bias;
layout(binding = 0) uniform sampler2D u_shadow_map;

in vec3 v_view;
in vec3 v_world;

layout(location = 0) out vec4 o_color;
layout(location = 1) out uint o_id;
layout(location = 2) out uint o_shadow;  // the mask, as the ray caster's: 0 in shadow, 255 lit (128: no fragment)

uint hash_u32(uint x) {  // lowbias32, as render/stages/shade.h
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

vec3 normalize_or_zero(vec3 v) {
  float len2 = dot(v, v);
  return len2 > 0.0 ? v * inversesqrt(len2) : vec3(0.0);
}

void main() {
  o_id = uint(gl_PrimitiveID);
  o_shadow = 255u;
  vec3 dir = normalize(v_view);  // the ray direction through this fragment's centre
  // Points towards the viewer whatever the winding (screen x and y derivatives span the face's plane).
  vec3 face_view = cross(dFdxFine(v_view), dFdyFine(v_view));
  vec3 color;
  if (u_shading == 2) {  // depth: near = bright
    float span = u_depth_range.y - u_depth_range.x;
    float x = span > 0.0 ? (-v_view.z - u_depth_range.x) / span : 0.0;
    color = vec3(1.0 - 0.85 * clamp(x, 0.0, 1.0));
  } else if (u_shading == 3) {  // normals: the face normal by its winding (front-facing = counter-clockwise)
    vec3 towards_viewer = normalize_or_zero(cross(dFdxFine(v_world), dFdyFine(v_world)));
    vec3 n = gl_FrontFacing ? towards_viewer : -towards_viewer;
    color = 0.5 + 0.5 * n;
  } else if (u_shading == 4) {  // triangle ID
    uint h = hash_u32(o_id);
    color = vec3(float(h & 255u), float((h >> 8) & 255u), float((h >> 16) & 255u)) / 255.0;
  } else if (u_light_kind == 1) {  // Blinn-Phong from a sun (shade.h's shade_lit), shadowed by the map
    vec3 n = normalize_or_zero(face_view);
    vec3 v = -dir;
    if (dot(n, v) < 0.0) n = -n;
    float ndl = max(0.0, dot(n, u_sun_view));
    float ndh = ndl > 0.0 ? max(0.0, dot(n, normalize_or_zero(u_sun_view + v))) : 0.0;
    float spec = ndh;
    for (int i = 0; i < 6; ++i) spec *= spec;
    float lit = 1.0;
    if (u_shadow_map_on == 1) {
      vec3 rel = v_world - u_light_eye;
      vec2 ndc = vec2(dot(u_light_right, rel), dot(u_light_up, rel)) * u_light_scale;
      float own = (u_light_depth.x + dot(u_light_back, rel)) * u_light_depth.y;  // depth along -back, reversed
      ivec2 size = textureSize(u_shadow_map, 0);
      ivec2 texel = clamp(ivec2((ndc * 0.5 + 0.5) * vec2(size)), ivec2(0), size - 1);
      float nearest = texelFetch(u_shadow_map, texel, 0).r;
      lit = nearest > own + u_shadow_bias ? 0.0 : 1.0;
    }
    o_shadow = lit > 0.0 ? 255u : 0u;
    float diffuse = 0.8 * ndl * lit;
    color = 0.08 + diffuse * vec3(0.90, 0.78, 0.62) + 0.35 * spec * lit;
  } else {  // Blinn-Phong headlight (shade.h): light and eye along -dir, so the half vector is the view vector
    vec3 n = normalize_or_zero(face_view);
    float ndv = abs(dot(n, -dir));  // two-sided
    float spec = ndv;
    for (int i = 0; i < 6; ++i) spec *= spec;  // ndv^64
    float diffuse = 0.8 * ndv;
    color = 0.08 + diffuse * vec3(0.90, 0.78, 0.62) + 0.35 * spec;
  }
  o_color = vec4(clamp(color, 0.0, 1.0), 1.0);
}
