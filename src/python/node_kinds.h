#pragma once
// Every node type name of the pinned tree-sitter-python grammar (the distinct names of its
// parser.c `ts_symbol_names`, as ts_language_symbol_name gives them, C escapes kept) and "ERROR"
// (the error node's name). KindName (syntax.h) turns a literal into its index here at compile
// time; a literal missing from the list does not compile. A unit test checks that every name the
// grammar gives its symbols is listed.
#include <cstddef>
#include <string_view>

namespace stoker::python::syntax_detail {
inline constexpr std::string_view kKindNames[] = {
    "end", "identifier", ";", "import", ".", "from", "__future__", "(", ")", ",", "as", "*", "print", ">>",
    "assert", ":=", "return", "del", "raise", "pass", "break", "continue", "if", ":", "elif", "else", "match",
    "case", "async", "for", "in", "while", "try", "except", "except*", "finally", "with", "def", "->", "**",
    "global", "nonlocal", "exec", "type", "=", "class", "[", "]", "@", "-", "_", "|", "{", "}", "+", "not",
    "and", "or", "/", "%", "//", "&", "^", "<<", "~", "is", "<", "<=", "==", "!=", ">=", ">", "<>", "lambda",
    "+=", "-=", "*=", "/=", "@=", "//=", "%=", "**=", ">>=", "<<=", "&=", "^=", "|=", "yield", "ellipsis",
    "escape_sequence", "\\", "format_specifier_token1", "type_conversion", "integer", "float", "await",
    "true", "false", "none", "comment", "line_continuation", "_newline", "_indent", "_dedent", "string_start",
    "_string_content", "escape_interpolation", "string_end", "module", "_statement", "_simple_statements",
    "import_statement", "import_prefix", "relative_import", "future_import_statement",
    "import_from_statement", "_import_list", "aliased_import", "wildcard_import", "print_statement",
    "chevron", "assert_statement", "expression_statement", "named_expression", "_named_expression_lhs",
    "return_statement", "delete_statement", "raise_statement", "pass_statement", "break_statement",
    "continue_statement", "if_statement", "elif_clause", "else_clause", "match_statement", "block",
    "case_clause", "for_statement", "while_statement", "try_statement", "except_clause",
    "except_group_clause", "finally_clause", "with_statement", "with_clause", "with_item",
    "function_definition", "parameters", "lambda_parameters", "list_splat", "dictionary_splat",
    "global_statement", "nonlocal_statement", "exec_statement", "type_alias_statement", "class_definition",
    "type_parameter", "parenthesized_list_splat", "argument_list", "decorated_definition", "decorator",
    "expression_list", "dotted_name", "case_pattern", "_simple_pattern", "as_pattern", "union_pattern",
    "list_pattern", "tuple_pattern", "dict_pattern", "_key_value_pattern", "keyword_pattern", "splat_pattern",
    "class_pattern", "complex_pattern", "_parameters", "_patterns", "parameter", "pattern",
    "default_parameter", "typed_default_parameter", "list_splat_pattern", "dictionary_splat_pattern",
    "_expression_within_for_in_clause", "expression", "primary_expression", "not_operator",
    "boolean_operator", "binary_operator", "unary_operator", "not in", "is not", "comparison_operator",
    "assignment", "augmented_assignment", "pattern_list", "_right_hand_side", "attribute", "subscript",
    "slice", "call", "typed_parameter", "splat_type", "generic_type", "union_type", "constrained_type",
    "member_type", "keyword_argument", "list", "set", "tuple", "dictionary", "pair", "list_comprehension",
    "dictionary_comprehension", "set_comprehension", "generator_expression", "_comprehension_clauses",
    "parenthesized_expression", "_collection_elements", "for_in_clause", "if_clause",
    "conditional_expression", "concatenated_string", "string", "string_content", "interpolation",
    "_f_expression", "_not_escape_sequence", "format_specifier", "positional_separator", "keyword_separator",
    "module_repeat1", "_simple_statements_repeat1", "import_prefix_repeat1", "_import_list_repeat1",
    "print_statement_repeat1", "assert_statement_repeat1", "if_statement_repeat1", "match_statement_repeat1",
    "_match_block_repeat1", "case_clause_repeat1", "try_statement_repeat1", "try_statement_repeat2",
    "with_clause_repeat1", "global_statement_repeat1", "type_parameter_repeat1", "argument_list_repeat1",
    "decorated_definition_repeat1", "dotted_name_repeat1", "union_pattern_repeat1", "dict_pattern_repeat1",
    "_parameters_repeat1", "_patterns_repeat1", "comparison_operator_repeat1", "subscript_repeat1",
    "dictionary_repeat1", "_comprehension_clauses_repeat1", "_collection_elements_repeat1",
    "for_in_clause_repeat1", "concatenated_string_repeat1", "string_repeat1", "string_content_repeat1",
    "format_specifier_repeat1", "as_pattern_target", "format_expression", "ERROR",
};
inline constexpr size_t kKindCount = sizeof(kKindNames) / sizeof(kKindNames[0]);
}  // namespace stoker::python::syntax_detail
