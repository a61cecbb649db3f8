// The compiled part of {fmt}, for the executables that link libstdc++ statically
// (sluice_link_static in cmake/grpc_libs.cmake). Debian ships it only as libfmt.so, which
// would bring the shared libstdc++ back. Not part of sluice_common: the daemons and tests
// use libfmt.so.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {
// The instantiations fmt/format.h declares `extern template` for the library to provide.
template auto thousands_sep_impl<char>(locale_ref) -> thousands_sep_result<char>;
template auto thousands_sep_impl<wchar_t>(locale_ref) -> thousands_sep_result<wchar_t>;
template auto decimal_point_impl(locale_ref) -> char;
template auto decimal_point_impl(locale_ref) -> wchar_t;
template void vformat_to(buffer<char>&, string_view, basic_format_args<FMT_BUFFER_CONTEXT(char)>,
                         locale_ref);
}  // namespace detail
FMT_END_NAMESPACE
