/* The per-op rules of TFLite's GetBuiltinOperatorVersion (op_version.cc; the source commit
   and the mapping onto our IR are in op_version.c), one function per op or op group; the
   dispatch from op code is compute() in op_version.c. */
#include "check/op_version_impl.h"

int lgv_conv2d(ov *c) {
    const lg_conv2d_options *o = opts_of(c, LG_OPTS_CONV2D_OPTIONS);
    /* int16 activations x int8 weights: quantized_bias_type set => 8. ParseConv2D fails (and
       TFLite would dereference a null params pointer) on a bias type outside the schema;
       we read that as "not set". */
    if (sig3(c, LG_INT16, LG_INT8, LG_INT16) && o && bias_type_parses(o->quantized_bias_type))
        return ret(c, 8, "INT16 input with INT8 filter and Conv2DOptions present "
                         "(quantized_bias_type %s is always set once parsed)",
                   tname(o->quantized_bias_type));
    /* is_grouped_convolution: input shape present and non-empty, input dim 3 != filter
       dim 3 (shape()->Get(3) on shorter shapes is undefined in TFLite; we need rank >= 4). */
    const lg_tensor *in = in_tensor(c, 0), *filter = in_tensor(c, 1);
    if (in && in->shape && in->rank > 0) {
        int64_t ic = dim_at(in, 3), fc = dim_at(filter, 3);
        if (ic >= 0 && fc >= 0 && ic != fc)
            return ret(c, 6, "grouped convolution (input has %lld channels, filter %lld)",
                       (long long)ic, (long long)fc);
    }
    /* op_version.cc tests outputs.at(1) here (CONV_2D has one output, so TFLite would abort
       for int16 x int16); a missing output has no type, so this is false. */
    if (in_is(c, 0, LG_INT16) && in_is(c, 1, LG_INT16) && out_type(c, 1) == LG_INT16)
        return ret(c, 4, "INT16 input and filter");
    if (sig3(c, LG_INT8, LG_INT8, LG_INT8)) return ret(c, 3, "INT8 input, filter and output");
    if (sig3(c, LG_INT8, LG_INT4, LG_INT8)) return ret(c, 7, "INT8 input with INT4 filter");
    if (sig3(c, LG_FLOAT32, LG_INT8, LG_FLOAT32)) {
        if (per_channel_conv(filter))
            return ret(c, 5, "hybrid FLOAT32 input with per-channel INT8 filter");
        return ret(c, 2, "hybrid FLOAT32 input with INT8 filter");
    }
    return base(c);
}

int lgv_depthwise(ov *c) {
    const lg_tensor *filter = in_tensor(c, 1);
    /* outputs.at(1), as for CONV_2D: false for a one-output op. */
    if (in_is(c, 0, LG_INT16) && in_is(c, 1, LG_INT16) && out_type(c, 1) == LG_INT16)
        return ret(c, 5, "INT16 input and filter");
    if (sig3(c, LG_FLOAT32, LG_INT8, LG_FLOAT32)) {
        if (per_channel_dw(filter))
            return ret(c, 6, "hybrid FLOAT32 input with per-channel INT8 filter");
        return ret(c, 4, "hybrid FLOAT32 input with INT8 filter");
    }
    if (sig3(c, LG_INT8, LG_INT8, LG_INT8)) return ret(c, 3, "INT8 input, filter and output");
    if (sig3(c, LG_INT8, LG_INT4, LG_INT8)) return ret(c, 7, "INT8 input with INT4 filter");
    /* Without DepthwiseConv2DOptions the parsed dilations stay 0, which is != 1. */
    const lg_depthwise_conv2d_options *o = opts_of(c, LG_OPTS_DEPTHWISE_CONV2D_OPTIONS);
    int32_t dw = o ? o->dilation_w_factor : 0, dh = o ? o->dilation_h_factor : 0;
    if (dw != 1 || dh != 1) {
        if (!o) return ret(c, 2, "no DepthwiseConv2DOptions (dilation reads as 0, not 1)");
        return ret(c, 2, "dilation %dx%d", (int)dh, (int)dw);
    }
    return base(c);
}

int lgv_embedding_lookup(ov *c) {
    const lg_tensor *table = in_tensor(c, 1);
    if (in_is(c, 1, LG_INT4)) return ret(c, 4, "INT4 table");
    if (per_channel_table(table)) return ret(c, 4, "per-channel quantized table");
    if (in_is(c, 1, LG_INT2)) return ret(c, 5, "INT2 table");
    return ret(c, 1, "%s table", tname(in_type(c, 1)));
}

int lgv_fully_connected(ov *c) {
    /* Absent options: zeroed params. Options that fail to parse (weights_format or
       quantized_bias_type outside the schema) leave TFLite with a null params pointer it
       dereferences; we read them as zeroed params too. */
    const lg_fully_connected_options *o = opts_of(c, LG_OPTS_FULLY_CONNECTED_OPTIONS);
    if (o && (!bias_type_parses(o->quantized_bias_type) ||
              (o->weights_format != LG_FULLY_CONNECTED_OPTIONS_WEIGHTS_FORMAT_DEFAULT &&
               o->weights_format != LG_FULLY_CONNECTED_OPTIONS_WEIGHTS_FORMAT_SHUFFLED4x16INT8)))
        o = NULL;
    const lg_tensor *w = in_tensor(c, 1);
    if (in_is(c, 1, LG_INT2)) return ret(c, 14, "INT2 weights");
    if (sig3(c, LG_INT16, LG_INT4, LG_INT16)) return ret(c, 13, "INT16 input with INT4 weights");
    if (sig3(c, LG_FLOAT32, LG_INT8, LG_FLOAT32) && per_channel_fc(w))
        return ret(c, 12, "hybrid FLOAT32 input with per-channel INT8 weights (%u scales)",
                   w->quant->n_scale);
    if (sig3(c, LG_INT16, LG_INT8, LG_INT16) && o)
        return ret(c, 11, "INT16 input with INT8 weights and FullyConnectedOptions present "
                          "(quantized_bias_type %s is always set once parsed)",
                   tname(o->quantized_bias_type));
    if (w && w->sparsity) return ret(c, 8, "sparse weights");
    if (sig3(c, LG_INT16, LG_INT16, LG_INT16)) return ret(c, 7, "INT16 input and weights");
    if (c->op->n_inputs == 2) return ret(c, 6, "2 inputs (no bias input)");
    if (o && o->keep_num_dims) return ret(c, 5, "keep_num_dims");
    if (sig3(c, LG_INT8, LG_INT8, LG_INT8)) return ret(c, 4, "INT8 input, weights and output");
    if (sig3(c, LG_INT8, LG_INT4, LG_INT8)) return ret(c, 10, "INT8 input with INT4 weights");
    if (sig3(c, LG_FLOAT32, LG_INT8, LG_FLOAT32)) {
        if (o && o->asymmetric_quantize_inputs)
            return ret(c, 9, "hybrid FLOAT32 input with INT8 weights, asymmetric_quantize_inputs");
        return ret(c, 3, "hybrid FLOAT32 input with INT8 weights");
    }
    if (o && o->weights_format == LG_FULLY_CONNECTED_OPTIONS_WEIGHTS_FORMAT_SHUFFLED4x16INT8)
        return ret(c, 2, "SHUFFLED4x16INT8 weights format");
    return base(c);
}

int lgv_gather(ov *c) {
    const lg_gather_options *o = opts_of(c, LG_OPTS_GATHER_OPTIONS);
    if (in_is(c, 0, LG_INT4)) return by_in_type(c, 7, 0);
    if (in_is(c, 1, LG_INT16)) return ret(c, 6, "INT16 indices");
    if (o && o->batch_dims != 0) return ret(c, 5, "batch_dims %d", (int)o->batch_dims);
    if (in_is(c, 0, LG_INT16)) return by_in_type(c, 4, 0);
    if (in_is(c, 0, LG_BOOL)) return by_in_type(c, 3, 0);
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

int lgv_svdf(ov *c) {
    const lg_svdf_options *o = opts_of(c, LG_OPTS_SVDF_OPTIONS);
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 3, 0);
    if (sig3(c, LG_FLOAT32, LG_INT8, LG_FLOAT32)) {
        if (o && o->asymmetric_quantize_inputs)
            return ret(c, 4, "hybrid FLOAT32 input with INT8 weights, asymmetric_quantize_inputs");
        return ret(c, 2, "hybrid FLOAT32 input with INT8 weights");
    }
    return base(c);
}

int lgv_mul(ov *c) {
    /* ext options, set only with >= 2 inputs and >= 1 output */
    bool input_quantized = false;
    float s1 = 0, s2 = 0, so = 0;
    if (c->op->n_inputs >= 2 && c->op->n_outputs >= 1) {
        const lg_tensor *a = in_tensor(c, 0), *b = in_tensor(c, 1), *out = out_tensor(c, 0);
        if (has_scales(a) && has_scales(b) && has_scales(out)) {
            s1 = a->quant->scale[0];
            s2 = b->quant->scale[0];
            so = out->quant->scale[0];
        }
        input_quantized = (a && a->quant) || (b && b->quant);
    }
    if (c->op->n_inputs > 0 && in_is(c, 0, LG_FLOAT16)) return by_in_type(c, 8, 0);
    if (in_is(c, 0, LG_INT16) && !input_quantized)
        return ret(c, 7, "INT16 input without quantization parameters");
    if (in_is(c, 0, LG_UINT32)) return by_in_type(c, 7, 0);
    if (in_is(c, 0, LG_COMPLEX64)) return by_in_type(c, 6, 0);
    if (in_is(c, 0, LG_INT64)) return by_in_type(c, 5, 0);
    if (in_is(c, 0, LG_INT16)) return ret(c, 4, "quantized INT16 input");
    if (s1 != 0 && s2 != 0 && so != 0) {
        float r = s1 * s2 / so; /* float arithmetic, as in op_version.cc */
        if (r >= 1.0)
            return ret(c, 3, "input scales product / output scale = %g >= 1", (double)r);
    }
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

int lgv_pool(ov *c) {
    if (in_is(c, 0, LG_INT16) && out_type(c, 0) == LG_INT16)
        return ret(c, 3, "INT16 input and output");
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

int lgv_transpose(ov *c) {
    uint32_t r = in_rank(c, 0);
    if (c->op->n_inputs > 0 && in_is(c, 0, LG_FLOAT16)) return by_in_type(c, 9, 0);
    if (r > 6) return ret(c, 8, "input rank %u > 6", r);
    if (in_is(c, 0, LG_BFLOAT16)) return by_in_type(c, 8, 0);
    if (in_is(c, 0, LG_INT4)) return by_in_type(c, 7, 0);
    if (r > 5) return ret(c, 6, "input rank %u > 5", r);
    if (in_is(c, 0, LG_INT16)) return by_in_type(c, 5, 0);
    if (r > 4) return ret(c, 4, "input rank %u > 4", r);
    if (in_is(c, 0, LG_BOOL)) return by_in_type(c, 3, 0);
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

int lgv_transpose_conv(ov *c) {
    /* inputs: 0 output_shape, 1 weights, 2 input, 3 bias (optional). Options that fail to
       parse (a quantized_bias_type outside the schema) leave a null params pointer, which
       op_version.cc checks here, so activation is then ignored. */
    const lg_transpose_conv_options *o = opts_of(c, LG_OPTS_TRANSPOSE_CONV_OPTIONS);
    if (o && !bias_type_parses(o->quantized_bias_type)) o = NULL;
    if (sig3(c, LG_INT16, LG_INT8, LG_INT16) && o)
        return ret(c, 5, "INT16 input 0 with INT8 weights and TransposeConvOptions present "
                         "(quantized_bias_type %s is always set once parsed)",
                   tname(o->quantized_bias_type));
    if (o && act_set(o->fused_activation_function))
        return ret(c, 4, "fused activation %s", act_name(o->fused_activation_function));
    if (c->op->n_inputs == 4 && in_type(c, 3) != NOTYPE)
        return ret(c, 3, "bias input given (4 inputs)");
    if (in_is(c, 1, LG_INT8)) return ret(c, 2, "INT8 weights");
    if (c->op->n_inputs < 2) return ret(c, 1, "no weights input, no property above version 1");
    return ret(c, 1, "%s weights, no bias, no fused activation", tname(in_type(c, 1)));
}

int lgv_lstm(ov *c) {
    /* Without LSTMOptions (or with an unknown kernel_type) ParseLSTM fails and TFLite
       dereferences a null pointer; we read zeroed params: FULL kernel, symmetric. */
    const lg_lstm_options *o = opts_of(c, LG_OPTS_LSTM_OPTIONS);
    if (o && o->kernel_type != LG_LSTM_KERNEL_TYPE_FULL &&
        o->kernel_type != LG_LSTM_KERNEL_TYPE_BASIC)
        o = NULL;
    bool full = !o || o->kernel_type == LG_LSTM_KERNEL_TYPE_FULL;
    if (full && in_is(c, 0, LG_INT16) && in_is(c, 2, LG_INT8) && out_type(c, 0) == LG_INT16)
        return ret(c, 5, "INT16 input with INT8 weights (full kernel)");
    if (full && in_is(c, 0, LG_FLOAT32) && in_is(c, 2, LG_INT8) && out_type(c, 0) == LG_FLOAT32) {
        if (o && o->asymmetric_quantize_inputs)
            return ret(c, 4, "hybrid FLOAT32 input with INT8 weights, asymmetric_quantize_inputs");
        return ret(c, 3, "hybrid FLOAT32 input with INT8 weights");
    }
    if (!full) return ret(c, 2, "BASIC kernel");
    return base(c);
}

int lgv_split(ov *c) {
    /* the data tensor is input 1 (input 0 is the axis) */
    if (in_is(c, 1, LG_INT16)) return ret(c, 4, "INT16 data input");
    if (in_is(c, 1, LG_INT32)) return ret(c, 3, "INT32 data input");
    if (in_is(c, 1, LG_INT8)) return ret(c, 2, "INT8 data input");
    return ret(c, 1, "%s data input, no property above version 1", tname(in_type(c, 1)));
}

int lgv_sparse_to_dense(ov *c) {
    if (in_is(c, 2, LG_INT8) || in_is(c, 2, LG_UINT8)) return ret(c, 3, "%s values",
                                                                   tname(in_type(c, 2)));
    if (in_is(c, 2, LG_INT64)) return ret(c, 2, "INT64 values");
    return base(c);
}

int lgv_slice(ov *c) {
    uint32_t r = in_rank(c, 0);
    if (c->op->n_inputs > 0 && in_is(c, 0, LG_FLOAT16)) return by_in_type(c, 8, 0);
    if (in_is(c, 0, LG_INT4)) return by_in_type(c, 7, 0);
    if (in_is(c, 0, LG_UINT32)) return by_in_type(c, 6, 0);
    if (r > 4) return ret(c, 5, "input rank %u > 4", r);
    if (in_is(c, 0, LG_INT16)) return by_in_type(c, 4, 0);
    if (in_is(c, 0, LG_STRING)) return by_in_type(c, 3, 0);
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

int lgv_unpack(ov *c) {
    if (in_is(c, 0, LG_INT8) || in_is(c, 0, LG_UINT8)) return by_in_type(c, 2, 0);
    if (in_is(c, 0, LG_BOOL)) return by_in_type(c, 3, 0);
    if (in_is(c, 0, LG_INT16) && out_type(c, 0) == LG_INT16)
        return ret(c, 4, "INT16 input and output");
    if (in_is(c, 0, LG_FLOAT16) || in_is(c, 0, LG_BFLOAT16)) return by_in_type(c, 5, 0);
    return base(c);
}

int lgv_dequantize(ov *c) {
    if (in_is(c, 0, LG_UINT4)) return by_in_type(c, 8, 0);
    if (in_is(c, 0, LG_INT2)) return by_in_type(c, 7, 0);
    if (in_is(c, 0, LG_INT4)) return by_in_type(c, 6, 0);
    if (in_is(c, 0, LG_INT16) || in_is(c, 0, LG_FLOAT16)) return by_in_type(c, 3, 0);
    if (in_is(c, 0, LG_INT8)) {
        if (per_channel_qdim(in_tensor(c, 0)))
            return ret(c, 5, "per-channel INT8 input (%u scales)", in_tensor(c, 0)->quant->n_scale);
        return by_in_type(c, 2, 0);
    }
    return base(c);
}

int lgv_quantize(ov *c) {
    int it = in_type(c, 0), ot = out_type(c, 0);
    if (it == LG_UINT4 || ot == LG_UINT4)
        return ret(c, 5, "UINT4 %s", it == LG_UINT4 ? "input" : "output");
    if (it == LG_INT4 || ot == LG_INT4)
        return ret(c, 4, "INT4 %s", it == LG_INT4 ? "input" : "output");
    if (per_channel_qdim(out_tensor(c, 0)))
        return ret(c, 3, "per-channel quantized output (%u scales)",
                   out_tensor(c, 0)->quant->n_scale);
    if (ot == LG_INT16) return ret(c, 2, "INT16 output");
    return ret(c, 1, "%s output, no property above version 1", tname(ot));
}

int lgv_strided_slice(ov *c) {
    /* Without StridedSliceOptions the parsed masks and offset stay 0. */
    const lg_strided_slice_options *o = opts_of(c, LG_OPTS_STRIDED_SLICE_OPTIONS);
    uint32_t r = in_rank(c, 0); /* ext_options.strided_slice.num_dims */
    if (o && o->offset) return ret(c, 8, "offset = true");
    if (in_is(c, 0, LG_UINT32)) return by_in_type(c, 7, 0);
    if (o && o->ellipsis_mask != 0)
        return ret(c, 6, "ellipsis_mask %d", (int)o->ellipsis_mask);
    if (o && o->new_axis_mask != 0)
        return ret(c, 6, "new_axis_mask %d", (int)o->new_axis_mask);
    if (in_is(c, 0, LG_STRING)) return by_in_type(c, 5, 0);
    if (r > 4) return ret(c, 4, "input rank %u > 4", r);
    if (in_is(c, 0, LG_BOOL)) return by_in_type(c, 3, 0);
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

int lgv_resize_bilinear(ov *c) {
    const lg_resize_bilinear_options *o = opts_of(c, LG_OPTS_RESIZE_BILINEAR_OPTIONS);
    if (in_is(c, 0, LG_INT16)) return by_in_type(c, 4, 0);
    if (o && o->half_pixel_centers) return ret(c, 3, "half_pixel_centers");
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

int lgv_resize_nearest(ov *c) {
    const lg_resize_nearest_neighbor_options *o =
        opts_of(c, LG_OPTS_RESIZE_NEAREST_NEIGHBOR_OPTIONS);
    if (in_is(c, 0, LG_INT16)) return by_in_type(c, 4, 0);
    if (o && o->half_pixel_centers) return ret(c, 3, "half_pixel_centers");
    if (o && o->align_corners) return ret(c, 3, "align_corners");
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

int lgv_max_min(ov *c) {
    if (in_is(c, 0, LG_INT16) && out_type(c, 0) == LG_INT16)
        return ret(c, 4, "INT16 input and output");
    if (need_broadcast(c) && max_in_rank(c) > 4)
        return ret(c, 3, "broadcast with an input of rank %u > 4", max_in_rank(c));
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

int lgv_pack(ov *c) {
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    if (in_is(c, 0, LG_INT16) && out_type(c, 0) == LG_INT16)
        return ret(c, 3, "INT16 input and output");
    if (in_is(c, 0, LG_UINT32)) return by_in_type(c, 4, 0);
    return base(c);
}

int lgv_space_batch(ov *c) {
    if (in_is(c, 0, LG_INT16)) return by_in_type(c, 4, 0);
    if (in_rank(c, 0) != 4) return ret(c, 3, "input rank %u != 4", in_rank(c, 0));
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

int lgv_add(ov *c) {
    const lg_add_options *o = opts_of(c, LG_OPTS_ADD_OPTIONS);
    const lg_tensor *a = in_tensor(c, 0);
    bool input_quantized = a && a->quant; /* ext_options.add.input_quantized */
    if (c->op->n_inputs > 0 && in_is(c, 0, LG_FLOAT16)) return by_in_type(c, 6, 0);
    if (c->op->n_inputs > 0 && in_is(c, 0, LG_INT16) && !input_quantized)
        return ret(c, 5, "INT16 input without quantization parameters");
    if (c->op->n_inputs > 0 && in_is(c, 0, LG_INT64)) return by_in_type(c, 4, 0);
    /* The params pointer is never null for ADD; absent options leave pot_scale_int16 false. */
    if (in_is(c, 0, LG_INT16) && out_type(c, 0) == LG_INT16 && !(o && o->pot_scale_int16))
        return ret(c, 3, "quantized INT16 input and output, pot_scale_int16 false%s",
                   o ? "" : " (no AddOptions)");
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

int lgv_sub(ov *c) {
    const lg_sub_options *o = opts_of(c, LG_OPTS_SUB_OPTIONS);
    if (in_is(c, 0, LG_INT16) && out_type(c, 0) == LG_INT16 && !(o && o->pot_scale_int16))
        return ret(c, 5, "INT16 input and output, pot_scale_int16 false%s",
                   o ? "" : " (no SubOptions)");
    if (c->op->n_inputs > 0 && in_is(c, 0, LG_INT64)) return by_in_type(c, 4, 0);
    if (need_broadcast(c) && max_in_rank(c) > 4)
        return ret(c, 3, "broadcast with an input of rank %u > 4", max_in_rank(c));
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

int lgv_gather_nd(ov *c) {
    if (in_is(c, 0, LG_BOOL)) return by_in_type(c, 5, 0);
    if (in_is(c, 1, LG_INT16)) return ret(c, 4, "INT16 indices");
    if (in_is(c, 0, LG_INT16)) return by_in_type(c, 3, 0);
    if (in_is(c, 0, LG_STRING)) return by_in_type(c, 2, 0);
    return base(c);
}

int lgv_div(ov *c) {
    if (need_broadcast(c) && max_in_rank(c) > 4)
        return ret(c, 2, "broadcast with an input of rank %u > 4", max_in_rank(c));
    return ret(c, 1, "no broadcast above rank 4");
}

int lgv_tanh_logistic(ov *c) {
    if (in_is(c, 0, LG_INT16) && out_type(c, 0) == LG_INT16)
        return ret(c, 3, "INT16 input and output");
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

int lgv_fill(ov *c) {
    if (c->op->n_inputs >= 2) {
        int t = in_type(c, 1);
        if (t == LG_FLOAT16) return ret(c, 4, "FLOAT16 value");
        if (t == LG_INT8 || t == LG_INT16) return ret(c, 3, "%s value", tname(t));
        if (t == LG_BOOL || t == LG_STRING) return ret(c, 2, "%s value", tname(t));
        return ret(c, 1, "%s value, no property above version 1", tname(t));
    }
    return ret(c, 1, "fewer than 2 inputs");
}

int lgv_equal(ov *c, int v_int16) {
    if (c->op->n_inputs > 0) {
        if (in_is(c, 0, LG_INT16)) return by_in_type(c, v_int16, 0);
        if (in_is(c, 0, LG_STRING)) return by_in_type(c, 3, 0);
        if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    }
    return base(c);
}

int lgv_batch_matmul(ov *c) {
    const lg_batch_mat_mul_options *o = opts_of(c, LG_OPTS_BATCH_MAT_MUL_OPTIONS);
    if (in_is(c, 0, LG_INT16)) return by_in_type(c, 3, 0);
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    if (sig3(c, LG_FLOAT32, LG_INT8, LG_FLOAT32) && o && o->asymmetric_quantize_inputs)
        return ret(c, 4, "hybrid FLOAT32 input with INT8 input 1, asymmetric_quantize_inputs");
    return base(c);
}

int lgv_pad(ov *c) {
    uint32_t r = in_rank(c, 0);
    if (in_is(c, 0, LG_BOOL)) return by_in_type(c, 5, 0);
    if (r > 4) return ret(c, 4, "input rank %u > 4", r);
    if (in_is(c, 0, LG_INT16)) return by_in_type(c, 3, 0);
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

int lgv_concatenation(ov *c) {
    if (c->op->n_inputs > 0 && in_is(c, 0, LG_FLOAT16)) return by_in_type(c, 6, 0);
    if (in_is(c, 0, LG_INT4)) return by_in_type(c, 5, 0);
    if (in_is(c, 0, LG_UINT32)) return by_in_type(c, 4, 0);
    if (in_is(c, 0, LG_INT16)) return by_in_type(c, 3, 0);
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

int lgv_softmax(ov *c) {
    if (c->op->n_inputs > 0 && in_is(c, 0, LG_FLOAT16)) return by_in_type(c, 4, 0);
    if (in_is(c, 0, LG_INT16)) return by_in_type(c, 3, 0);
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

/* INT16 => 3, INT8 => 2 (MEAN, MIRROR_PAD, REDUCE_MAX, REDUCE_MIN, RELU6, RSQRT). */
int lgv_i16_3_i8_2(ov *c) {
    if (in_is(c, 0, LG_INT16)) return by_in_type(c, 3, 0);
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

/* INT8 => 2 (SPACE_TO_DEPTH, SPLIT_V, SUM, LOG_SOFTMAX, GREATER, LESS_EQUAL,
   SQUARED_DIFFERENCE, DEPTH_TO_SPACE). */
int lgv_i8_2(ov *c) {
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

/* RNN, UNIDIRECTIONAL_SEQUENCE_RNN, BIDIRECTIONAL_SEQUENCE_RNN/LSTM: INT8 input 1 with a
   FLOAT32 output is hybrid: 2, or 3 with asymmetric_quantize_inputs. */
int lgv_rnn_like(ov *c, bool asym) {
    if (in_is(c, 1, LG_INT8) && out_type(c, 0) == LG_FLOAT32) {
        if (asym) return ret(c, 3, "hybrid INT8 weights, asymmetric_quantize_inputs");
        return ret(c, 2, "hybrid INT8 weights with FLOAT32 output");
    }
    return base(c);
}

int lgv_uni_lstm(ov *c) {
    const lg_unidirectional_sequence_lstm_options *o =
        opts_of(c, LG_OPTS_UNIDIRECTIONAL_SEQUENCE_LSTM_OPTIONS);
    if (in_is(c, 0, LG_INT16) && in_is(c, 2, LG_INT8) && out_type(c, 0) == LG_INT16)
        return ret(c, 5, "INT16 input with INT8 weights");
    if (o && o->diagonal_recurrent_tensors) return ret(c, 4, "diagonal_recurrent_tensors");
    if (in_is(c, 0, LG_FLOAT32) && in_is(c, 2, LG_INT8) && out_type(c, 0) == LG_FLOAT32) {
        if (o && o->asymmetric_quantize_inputs)
            return ret(c, 3, "hybrid FLOAT32 input with INT8 weights, asymmetric_quantize_inputs");
        return ret(c, 2, "hybrid FLOAT32 input with INT8 weights");
    }
    return base(c);
}

int lgv_arg_max_min(ov *c) {
    if (in_is(c, 0, LG_BOOL)) return by_in_type(c, 3, 0);
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

int lgv_select(ov *c) {
    /* op_version.cc tests the type of input 0, the condition (normally BOOL). */
    if (in_is(c, 0, LG_UINT32)) return ret(c, 4, "UINT32 input 0");
    for (uint32_t i = 0; i < 3; i++)
        if (in_rank(c, i) == 5) return ret(c, 3, "input %u has rank 5", i);
    if (in_is(c, 0, LG_INT8)) return ret(c, 2, "INT8 input 0");
    return base(c);
}

int lgv_topk(ov *c) {
    if (in_is(c, 0, LG_INT16)) return by_in_type(c, 3, 0);
    if (in_is(c, 1, LG_INT16)) return ret(c, 3, "INT16 k");
    if (out_type(c, 1) == LG_INT16) return ret(c, 3, "INT16 indices output");
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

int lgv_dynamic_update_slice(ov *c) {
    if (in_is(c, 0, LG_BFLOAT16)) return by_in_type(c, 6, 0);
    if (in_is(c, 0, LG_INT4)) return by_in_type(c, 5, 0);
    if (in_is(c, 0, LG_INT16)) return by_in_type(c, 4, 0);
    if (in_is(c, 0, LG_FLOAT16)) return by_in_type(c, 3, 0);
    if (in_is(c, 2, LG_INT64)) return ret(c, 2, "INT64 start indices");
    return base(c);
}

int lgv_cast(ov *c) {
    int i = in_type(c, 0), o = out_type(c, 0);
#define EITHER(t) (i == (t) || o == (t))
    if (EITHER(LG_INT2) || EITHER(LG_UINT4))
        return ret(c, 8, "cast %s -> %s (INT2/UINT4)", tname(i), tname(o));
    if (EITHER(LG_BFLOAT16)) return ret(c, 7, "cast %s -> %s (BFLOAT16)", tname(i), tname(o));
    if (i == LG_INT4 && o == LG_FLOAT32) return ret(c, 6, "cast INT4 -> FLOAT32");
    if (EITHER(LG_FLOAT64) || EITHER(LG_FLOAT16))
        return ret(c, 5, "cast %s -> %s (FLOAT64/FLOAT16)", tname(i), tname(o));
    if (EITHER(LG_UINT16)) return ret(c, 4, "cast %s -> %s (UINT16)", tname(i), tname(o));
    if (EITHER(LG_INT8)) return ret(c, 3, "cast %s -> %s (INT8)", tname(i), tname(o));
    if (EITHER(LG_UINT32)) return ret(c, 2, "cast %s -> %s (UINT32)", tname(i), tname(o));
#undef EITHER
    return ret(c, 1, "cast %s -> %s, no property above version 1", tname(i), tname(o));
}
