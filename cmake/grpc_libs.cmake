# sluice_grpc and sluice_crypto: gRPC + protobuf + abseil, and OpenSSL's libcrypto.
#
# A target with the property SLUICE_STATIC_LIBS set links the static archives (.a) of
# all of them instead of the shared libraries. The user commands (srun, squeue, ...) and
# sluice-stepd do: loading ~60 shared C++ libraries costs ~20 ms per process start, four
# times what the static binary needs (bench/RESULTS.md, "Step launch"). Daemons and tests
# stay dynamic (the controller also loads libpq, which brings its own shared libcrypto).
# The archives come with the same Debian -dev packages; without them all links are shared.
pkg_check_modules(GRPC_ALL QUIET grpc++ protobuf)
set(sluice_static_archives "")
set(sluice_static_ok ${GRPC_ALL_FOUND})
foreach(lib ${GRPC_ALL_STATIC_LIBRARIES})
  if(lib MATCHES "^(dl|rt|pthread|atomic|m|c)$")
    list(APPEND sluice_static_archives ${lib})
    continue()
  endif()
  find_library(SLUICE_ARCHIVE_${lib} NAMES lib${lib}.a)
  if(SLUICE_ARCHIVE_${lib})
    list(APPEND sluice_static_archives ${SLUICE_ARCHIVE_${lib}})
  else()
    set(sluice_static_ok FALSE)
  endif()
endforeach()
find_library(SLUICE_ARCHIVE_crypto_only NAMES libcrypto.a)
if(NOT SLUICE_ARCHIVE_crypto_only)
  set(sluice_static_ok FALSE)
endif()

set(static "$<BOOL:$<TARGET_PROPERTY:SLUICE_STATIC_LIBS>>")
add_library(sluice_grpc INTERFACE)
add_library(sluice_crypto INTERFACE)
if(sluice_static_ok)
  target_link_libraries(sluice_grpc INTERFACE
    "$<${static}:${sluice_static_archives}>"
    "$<$<NOT:${static}>:protobuf::libprotobuf;PkgConfig::GRPCPP>")
  target_link_libraries(sluice_crypto INTERFACE
    "$<${static}:${SLUICE_ARCHIVE_crypto_only}>" "$<$<NOT:${static}>:OpenSSL::Crypto>")
else()
  message(STATUS "static gRPC/protobuf/abseil archives not found: commands link shared libraries")
  target_link_libraries(sluice_grpc INTERFACE protobuf::libprotobuf PkgConfig::GRPCPP)
  target_link_libraries(sluice_crypto INTERFACE OpenSSL::Crypto)
endif()
target_include_directories(sluice_grpc INTERFACE ${GRPCPP_INCLUDE_DIRS})

# sluice_link_static(<target>...): mark executables to link the archives. With them,
# they also link libstdc++ statically, with {fmt}'s compiled part built in
# (src/common/fmt_out_of_line.cc; --as-needed then drops libfmt.so): the dynamic loader's
# symbol binding for libstdc++ and libfmt took ~1.3 ms of CPU of every command's start.
if(sluice_static_ok)
  add_library(sluice_fmt_out_of_line OBJECT ${CMAKE_SOURCE_DIR}/src/common/fmt_out_of_line.cc)
endif()
function(sluice_link_static)
  set_target_properties(${ARGN} PROPERTIES SLUICE_STATIC_LIBS ON)
  if(sluice_static_ok)
    foreach(t ${ARGN})
      target_link_libraries(${t} PRIVATE sluice_fmt_out_of_line)
      target_link_options(${t} PRIVATE -static-libstdc++ -static-libgcc -Wl,--as-needed)
    endforeach()
  endif()
endfunction()
