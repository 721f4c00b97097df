/** Tailwind 4 runs as a single PostCSS plugin; it needs no tailwind.config file. */
export default {
  plugins: {
    "@tailwindcss/postcss": {},
  },
};
