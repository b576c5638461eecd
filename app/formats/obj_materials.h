// OBJ's materials: the MTL libraries an OBJ file names (`mtllib`) and the materials its faces use (`usemtl`),
// read through tinyobjloader's MTL parser, with their diffuse textures (`map_Kd`) decoded by stb_image.
#pragma once
#include "app/mesh_io.h"

#include <string>
#include <vector>

namespace slabcast::formats {

struct ObjMaterialUse {  // a `usemtl` name, at its first use
  std::string name;
  size_t line = 0;
};
struct ObjLibraryRef {  // a file named by `mtllib`
  std::string file;
  size_t line = 0;
};

// Textures larger than this are not loaded (a warning, and the material keeps its base colour): 256 MiB of RGBA8.
constexpr uint64_t kMaxTextureTexels = uint64_t(8192) * 8192;

// Sets mesh->materials to one material per use, in order of first use (material i is uses[i]), and
// mesh->textures to the textures they name. Libraries are found relative to the OBJ file's folder, textures
// relative to their library's folder ('\' read as '/'). A material's base colour is Kd (white without one) with
// alpha d (or 1 - Tr; 1 without either); its texture is map_Kd. Nothing here fails the load: a library or texture
// that is missing or unreadable, a texture past kMaxTextureTexels, or a name no library defines is one warning
// "OBJ:LINE: what" naming the file, and the material keeps its base colour (white for an unknown name).
void load_obj_materials(const std::string& obj_path, const std::vector<ObjLibraryRef>& libraries,
                        const std::vector<ObjMaterialUse>& uses, Mesh* mesh, const LoadWarning& warn);

}  // namespace slabcast::formats
