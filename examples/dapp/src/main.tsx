import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { WagmiProvider } from 'wagmi';
import { App } from './App.tsx';
import { loadConfig } from './config.ts';
import './style.css';

const root = createRoot(document.getElementById('root')!);
const queryClient = new QueryClient();

loadConfig().then(
  (config) =>
    root.render(
      <StrictMode>
        <WagmiProvider config={config}>
          <QueryClientProvider client={queryClient}>
            <App />
          </QueryClientProvider>
        </WagmiProvider>
      </StrictMode>,
    ),
  (error: Error) => root.render(<p role="alert">The chains could not be loaded: {error.message}</p>),
);
