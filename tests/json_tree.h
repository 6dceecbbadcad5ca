/* json_tree.h — the tests' comparison of two jansson trees: the same kinds, the
 * same values (reals bit for bit, so -0.0 is not 0.0), the same keys in the same
 * order. For test_json_read.c and the loader's fuzz target. Header-only. */
#ifndef QKV_TESTS_JSON_TREE_H
#define QKV_TESTS_JSON_TREE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t json_tree_bits(double x)
{
	uint64_t b;

	memcpy(&b, &x, sizeof b);
	return b;
}

/* Same kinds, same values (reals bit for bit), same keys in the same order. */
static inline bool json_tree_same(const json_t *a, const json_t *b)
{
	if (json_typeof(a) != json_typeof(b))
		return false;
	switch (json_typeof(a)) {
	case JSON_OBJECT: {
		void *ia = json_object_iter((json_t *)a), *ib = json_object_iter((json_t *)b);

		if (json_object_size(a) != json_object_size(b))
			return false;
		while (ia != NULL && ib != NULL) {
			if (strcmp(json_object_iter_key(ia), json_object_iter_key(ib)) != 0 ||
			    !json_tree_same(json_object_iter_value(ia), json_object_iter_value(ib)))
				return false;
			ia = json_object_iter_next((json_t *)a, ia);
			ib = json_object_iter_next((json_t *)b, ib);
		}
		return ia == NULL && ib == NULL;
	}
	case JSON_ARRAY:
		if (json_array_size(a) != json_array_size(b))
			return false;
		for (size_t i = 0; i < json_array_size(a); i++)
			if (!json_tree_same(json_array_get(a, i), json_array_get(b, i)))
				return false;
		return true;
	case JSON_STRING:
		return json_string_length(a) == json_string_length(b) &&
		       memcmp(json_string_value(a), json_string_value(b), json_string_length(a)) == 0;
	case JSON_INTEGER:
		return json_integer_value(a) == json_integer_value(b);
	case JSON_REAL:
		return json_tree_bits(json_real_value(a)) == json_tree_bits(json_real_value(b));
	default:
		return true;
	}
}

#endif
