# Writes a .cpp defining `SYMBOL` as the text of a data file at build time, so editing the
# lexicon or the grammar needs no reconfigure. Called with -DIN=<tsv> -DSYMBOL=<name>
# -DTEMPLATE=<lexicon_data.cpp.in> -DOUT=<cpp>.
file(READ ${IN} SKILLRT_EMBED_TEXT)
set(SKILLRT_EMBED_SYMBOL ${SYMBOL})
configure_file(${TEMPLATE} ${OUT} @ONLY)
