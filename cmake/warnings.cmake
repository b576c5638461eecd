# Warnings on for the project's own targets: slabcast_warnings(target).
# -Werror is opt-in (-DSLABCAST_WERROR=ON, as CI does) so a newer compiler's new warning does not break a user's build.
option(SLABCAST_WERROR "Treat warnings as errors" OFF)
function(slabcast_warnings target)
  set(cxx_flags -Wall -Wextra -Wshadow -Wnon-virtual-dtor)
  if(SLABCAST_WERROR)
    list(APPEND cxx_flags -Werror)
  endif()
  string(REPLACE ";" "," host_flags "${cxx_flags}")
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:${cxx_flags}>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra --extended-lambda --expt-relaxed-constexpr -Xcudafe=--display_error_number>)
  if(SLABCAST_WERROR)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings>)
  endif()
endfunction()
