#include "rpc/field_copier.h"

#include <fmt/format.h>

#include <string_view>

namespace sluice {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::FieldMask;
using google::protobuf::Message;
using google::protobuf::Reflection;

Expected<FieldCopier> FieldCopier::Build(const Descriptor* type, const FieldMask& mask,
                                         const std::vector<std::string>& always) {
  FieldCopier c;
  if (mask.paths().empty()) return c;
  c.everything_ = false;
  for (const std::string& p : mask.paths()) RETURN_IF_ERROR(c.Add(type, p));
  for (const std::string& p : always) RETURN_IF_ERROR(c.Add(type, p));
  return c;
}

Status FieldCopier::Add(const Descriptor* type, const std::string& path) {
  std::vector<Node>* level = &root_;
  std::string_view rest = path;
  while (true) {
    const size_t dot = rest.find('.');
    const std::string name(rest.substr(0, dot));
    const FieldDescriptor* f = type->FindFieldByName(name);
    if (!f) {
      return InvalidArgument(fmt::format("Invalid field mask path '{}': {} has no field '{}'", path,
                                         type->name(), name));
    }
    const bool last = dot == std::string_view::npos;
    if (!last && (f->is_repeated() || f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE)) {
      return InvalidArgument(fmt::format("Invalid field mask path '{}': '{}' is {}", path, name,
                                         f->is_repeated() ? "repeated" : "not a message"));
    }
    Node* node = nullptr;
    for (Node& n : *level)
      if (n.field == f) node = &n;
    if (node && node->children.empty()) return Status::Ok();  // already copied whole
    if (!node) {
      level->push_back(Node{f, {}});
      node = &level->back();
      if (last) return Status::Ok();
    }
    if (last) {
      node->children.clear();  // whole now
      return Status::Ok();
    }
    level = &node->children;
    type = f->message_type();
    rest = rest.substr(dot + 1);
  }
}

namespace {

void CopyRepeated(const Reflection* r, const Message& from, Message* to, const FieldDescriptor* f) {
  const int n = r->FieldSize(from, f);
  for (int i = 0; i < n; ++i) {
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32:
        r->AddInt32(to, f, r->GetRepeatedInt32(from, f, i));
        break;
      case FieldDescriptor::CPPTYPE_INT64:
        r->AddInt64(to, f, r->GetRepeatedInt64(from, f, i));
        break;
      case FieldDescriptor::CPPTYPE_UINT32:
        r->AddUInt32(to, f, r->GetRepeatedUInt32(from, f, i));
        break;
      case FieldDescriptor::CPPTYPE_UINT64:
        r->AddUInt64(to, f, r->GetRepeatedUInt64(from, f, i));
        break;
      case FieldDescriptor::CPPTYPE_DOUBLE:
        r->AddDouble(to, f, r->GetRepeatedDouble(from, f, i));
        break;
      case FieldDescriptor::CPPTYPE_FLOAT:
        r->AddFloat(to, f, r->GetRepeatedFloat(from, f, i));
        break;
      case FieldDescriptor::CPPTYPE_BOOL:
        r->AddBool(to, f, r->GetRepeatedBool(from, f, i));
        break;
      case FieldDescriptor::CPPTYPE_ENUM:
        r->AddEnumValue(to, f, r->GetRepeatedEnumValue(from, f, i));
        break;
      case FieldDescriptor::CPPTYPE_STRING:
        r->AddString(to, f, r->GetRepeatedString(from, f, i));
        break;
      case FieldDescriptor::CPPTYPE_MESSAGE:
        r->AddMessage(to, f)->CopyFrom(r->GetRepeatedMessage(from, f, i));
        break;
    }
  }
}

void CopySingular(const Reflection* r, const Message& from, Message* to, const FieldDescriptor* f) {
  if (f->has_presence() && !r->HasField(from, f)) return;
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      r->SetInt32(to, f, r->GetInt32(from, f));
      break;
    case FieldDescriptor::CPPTYPE_INT64:
      r->SetInt64(to, f, r->GetInt64(from, f));
      break;
    case FieldDescriptor::CPPTYPE_UINT32:
      r->SetUInt32(to, f, r->GetUInt32(from, f));
      break;
    case FieldDescriptor::CPPTYPE_UINT64:
      r->SetUInt64(to, f, r->GetUInt64(from, f));
      break;
    case FieldDescriptor::CPPTYPE_DOUBLE:
      r->SetDouble(to, f, r->GetDouble(from, f));
      break;
    case FieldDescriptor::CPPTYPE_FLOAT:
      r->SetFloat(to, f, r->GetFloat(from, f));
      break;
    case FieldDescriptor::CPPTYPE_BOOL:
      r->SetBool(to, f, r->GetBool(from, f));
      break;
    case FieldDescriptor::CPPTYPE_ENUM:
      r->SetEnumValue(to, f, r->GetEnumValue(from, f));
      break;
    case FieldDescriptor::CPPTYPE_STRING: {
      std::string scratch;
      const std::string& s = r->GetStringReference(from, f, &scratch);
      if (!s.empty() || f->has_presence()) r->SetString(to, f, s);
      break;
    }
    case FieldDescriptor::CPPTYPE_MESSAGE:
      r->MutableMessage(to, f)->CopyFrom(r->GetMessage(from, f));
      break;
  }
}

}  // namespace

void FieldCopier::CopyNodes(const std::vector<Node>& nodes, const Message& from, Message* to) {
  const Reflection* r = from.GetReflection();
  for (const Node& n : nodes) {
    if (!n.children.empty()) {  // a singular message, part of it
      if (r->HasField(from, n.field)) {
        CopyNodes(n.children, r->GetMessage(from, n.field), r->MutableMessage(to, n.field));
      }
    } else if (n.field->is_repeated()) {
      CopyRepeated(r, from, to, n.field);
    } else {
      CopySingular(r, from, to, n.field);
    }
  }
}

void FieldCopier::Copy(const Message& from, Message* to) const {
  if (everything_) {
    to->CopyFrom(from);
    return;
  }
  CopyNodes(root_, from, to);
}

}  // namespace sluice
